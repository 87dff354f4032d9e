// The upstream side of bench/code_mode_bench.cc: dsh-tools' run_code on the
// worker-thread code runtime (@deepseek-ai/dsh-code-runtime-worker-thread),
// with one trivial tool. Prints {"startMs": <median of a `return 1` run>,
// "callsMs": <a run of `calls` sequential tool calls>, "calls": N,
// "firstMs": <the process's first run>} as JSON.
//   node code_mode.mjs <upstream dir> <calls> <start runs>
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, callsArg = '10000', startsArg = '20'] = process.argv.slice(2);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { ToolRuntime, defineTool } = await load('dsh-tools');
const { WorkerThreadCodeRuntime } = await load('dsh-code-runtime-worker-thread');

const ctx = new Context();
ctx.provide('systemPrompt');
ctx.set('systemPrompt', { tools() { return () => {}; }, section() { return () => {}; } });
ctx.plugin(WorkerThreadCodeRuntime, {});
ctx.plugin(ToolRuntime, { mode: 'code' });
await new Promise((r) => setTimeout(r, 100));
const tools = ctx.get('tools');
tools.register(defineTool({
  name: 'noop', description: 'Returns its argument.', parameters: { i: { type: 'number', required: true } },
  output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
  isConcurrencySafe: () => true,
  async execute(args) { return args.i; },
}));

let serial = 0;
async function run(code) {
  const t0 = performance.now();
  const r = await tools.execute({ callId: `b${++serial}`, name: 'run_code', arguments: { code, description: 'bench' },
                                  signal: new AbortController().signal });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(r.content[0].text);
  return ms;
}

const calls = Number(callsArg);
const firstMs = await run('return 1');  // the first run also loads the type stripper, host-side
const starts = [];
for (let i = 0; i < Number(startsArg); i++) starts.push(await run('return 1'));
starts.sort((a, b) => a - b);
const callsMs = await run(`let s = 0; for (let i = 0; i < ${calls}; i++) s += await tools.noop({i}); return s;`);
console.log(JSON.stringify({ startMs: starts[Math.floor(starts.length / 2)], callsMs, calls, firstMs }));
process.exit(0);
