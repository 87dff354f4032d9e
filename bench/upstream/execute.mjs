// Times N calls of a trivial tool through the upstream dsh-tools ToolRuntime.execute()
// (no policy listeners), the same tool runtime_bench runs through retrace.
// usage: node execute.mjs <dir holding node_modules/@deepseek-ai> <calls>
// Prints the seconds the calls took (first token), then the calls.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, n] = process.argv.slice(2);
const calls = Number(n);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { ToolRuntime, defineTool } = await load('dsh-tools');

const ctx = new Context();
// The runtime only needs somewhere to hang its prompt sections.
ctx.provide('systemPrompt');
ctx.set('systemPrompt', { tools() { return () => {}; }, section() { return () => {}; } });
ctx.plugin(ToolRuntime);
await ctx.inject(['tools'], async (c) => {
  c.tools.register(defineTool({
    name: 'echo',
    description: 'Echo a string.',
    parameters: { s: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    async execute(args) { return args.s; },
  }));
  const signal = new AbortController().signal;
  const run = async (k) => {
    for (let i = 0; i < k; i++) {
      const r = await c.tools.execute({ callId: `c${i}`, name: 'echo', arguments: { s: 'hi' }, signal });
      if (r.isError) throw new Error(JSON.stringify(r));
    }
  };
  await run(Math.min(calls, 2000));  // warm-up (JIT)
  const t0 = performance.now();
  await run(calls);
  console.log(((performance.now() - t0) / 1000).toFixed(6), calls);
});
