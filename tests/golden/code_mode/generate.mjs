// Regenerates tests/golden/code_mode/run_code.json: what dsh-tools' own `run_code` gives, run
// through its registry with a stand-in code runtime that returns canned outcomes:
//  - its wire schema and description per runtime language (TypeScript, Python);
//  - its result text for completion values (the render and its depth rule) and for failed
//    runs (CodeRunFailedError, with and without captured logs);
//  - its call card (presentCall);
//  - the route-back refusal of a model-direct call under `code` mode.
//   eval "$(bench/setup_upstream.sh)" && "$NODE" tests/golden/code_mode/generate.mjs "$UPSTREAM"
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve, dirname } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const upstream = process.argv[2];
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { ToolRuntime, defineTool } = await load('dsh-tools');

// A code runtime whose next outcome the generator sets.
const runtime = { language: 'typescript', next: undefined, async run() { return this.next; } };

async function toolsFor(language) {
  runtime.language = language;
  const ctx = new Context();
  const services = { systemPrompt: { tools() { return () => {}; }, section() { return () => {}; } }, codeRuntime: runtime };
  for (const [name, service] of Object.entries(services)) {
    ctx.provide(name);
    ctx.set(name, service);
  }
  ctx.plugin(ToolRuntime, { mode: 'code' });
  await new Promise((r) => setTimeout(r, 50));
  const tools = ctx.get('tools');
  tools.register(defineTool({
    name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    async execute(args) { return args.text; },
  }));
  return tools;
}

let serial = 0;
async function runCode(tools, outcome, description = 'Do a thing') {
  runtime.next = outcome;
  const result = await tools.execute({ callId: `c${++serial}`, name: 'run_code', arguments: { code: 'return 1', description }, signal: new AbortController().signal });
  return { isError: result.isError === true, content: result.content, ...(result.error ? { error: result.error } : {}) };
}

const deep = { a: { b: { c: { d: { e: { f: [1, { g: 2 }] } } } } } };
const values = [
  null, true, false, 0, -1.5, 1e21, 'a string\nraw', '', [], {}, [1, 'two', null], { k: 'v', n: 1, nested: { x: [] } },
  deep, [[[[[[[1, 2]]]]]]], { '': 'empty key', 'q"uote': 'x', 10: 'index key first' }, 'ü\u2028', [{}, []],
];
const golden = { schemas: {}, completions: [], failures: [], card: null, collapse: null };
for (const language of ['typescript', 'python']) {
  const tools = await toolsFor(language);
  golden.schemas[language] = tools.schemas().find((s) => s.name === 'run_code');
  if (language !== 'typescript') continue;
  golden.outputSchema = tools.get('run_code').output.schema;
  for (const value of values) {
    golden.completions.push({ logs: [], result: value, outcome: await runCode(tools, { logs: [], value }) });
  }
  for (const logs of [['one'], ['l1', '', 'l3']]) {
    golden.completions.push({ logs, outcome: await runCode(tools, { logs }) });
    golden.completions.push({ logs, result: 'r', outcome: await runCode(tools, { logs, value: 'r' }) });
    golden.completions.push({ logs, result: null, outcome: await runCode(tools, { logs, value: null }) });
  }
  golden.completions.push({ logs: [], outcome: await runCode(tools, { logs: [] }) });
  golden.completions.push({ logs: [''], result: '', outcome: await runCode(tools, { logs: [''], value: '' }) });
  for (const kind of ['exception', 'timeout', 'output-limit', 'worker-exit', 'abort', 'invalid-output']) {
    for (const logs of [[], ['printed', 'twice']]) {
      const error = { kind, message: `${kind} happened` };
      golden.failures.push({ error, logs, outcome: await runCode(tools, { logs, error }) });
    }
  }
  golden.blankDescription = await runCode(tools, { logs: [] }, ' \t ');
  golden.card = tools.get('run_code').presentCall({ code: 'const x = 1;\nreturn x', description: 'Count TODO markers' });
  const refused = await tools.execute({ callId: 'direct', name: 'echo', arguments: { text: 'hi' }, signal: new AbortController().signal });
  golden.collapse = { content: refused.content, error: refused.error };
}
writeFileSync(resolve(here, 'run_code.json'), JSON.stringify(golden, null, 1) + '\n');
console.error(`run_code.json: ${golden.completions.length} completions, ${golden.failures.length} failures`);
