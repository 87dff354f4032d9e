// Runs run_code programs through upstream dsh-tools in `code` mode, on the
// worker-thread code runtime (@deepseek-ai/dsh-code-runtime-worker-thread) and
// the real tool packages (as tool_parity.mjs composes them, over the
// workspace), and prints what each gave: run_code's result (text, isError,
// error identity) and its sub-calls as the tools/result observers saw them
// (subCallId, name, arguments, isError, content) — what tool/code-dispatch logs.
// usage: node code_mode_parity.mjs <upstream dir> <workspace> <cases.json> <reset script>
//   cases.json: [{"name", "code"}]; the reset script restores the workspace before each case.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, workspace, casesFile, reset] = process.argv.slice(2);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { ToolRuntime } = await load('dsh-tools');
const { LocalFileSystem } = await load('dsh-fs-local');
const { WorkerThreadCodeRuntime } = await load('dsh-code-runtime-worker-thread');

process.chdir(workspace);
const ctx = new Context();
const services = {
  systemPrompt: { tools() { return () => {}; }, section() { return () => {}; } },
  shellEnv: { collect() { return { DSH_SHELL: '1' }; } },
  web: {},
};
for (const [name, service] of Object.entries(services)) {
  ctx.provide(name);
  ctx.set(name, service);
}
ctx.plugin(LocalFileSystem, { cwd: workspace });
ctx.plugin(WorkerThreadCodeRuntime, {});
ctx.plugin(ToolRuntime, { mode: 'code' });
ctx.plugin((await load('dsh-subprocess-local')).LocalSubprocessRuntime);
ctx.plugin((await load('dsh-bash-local')).LocalBashExecutor, { cwd: workspace });
ctx.plugin((await load('dsh-jobs-local')).LocalJobRegistry);
ctx.plugin(await load('dsh-tool-fs'), {});
ctx.plugin(await load('dsh-tool-fs-search'), { sampleOverCapGlobResults: true });
ctx.plugin(await load('dsh-tool-bash'), {});
ctx.plugin(await load('dsh-tool-jobs'), {});
await new Promise((r) => setTimeout(r, 100));
const tools = ctx.get('tools');

let subCalls = [];
ctx.on('tools/result', (exec, result) => {
  if (exec.parent === undefined) return;
  subCalls.push({ subCallId: exec.callId, name: exec.name, arguments: exec.arguments, isError: result.isError,
                  content: result.content });
});

const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const c of cases) {
  execFileSync('/bin/sh', [reset]);
  subCalls = [];
  const r = await tools.execute({ callId: 'c1', name: 'run_code', arguments: { code: c.code, description: c.name },
                                  signal: new AbortController().signal });
  subCalls.sort((a, b) => (a.subCallId < b.subCallId ? -1 : 1));
  out.push({ name: c.name, isError: r.isError, text: r.content[0].text, error: r.error?.info ?? null, subCalls });
}
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
