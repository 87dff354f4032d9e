// Runs tool calls through the upstream dsh tool packages for real and prints
// what a session would record and show for each: the durable result (content,
// isError, error identity, meta) and the cards. The composition: dsh-tools'
// ToolRuntime; dsh-tool-fs on dsh-fs-local's LocalFileSystem rooted at the
// workspace; dsh-tool-fs-search and dsh-tool-bash over dsh-subprocess-local and
// dsh-bash-local (cwd = the workspace); dsh-tool-jobs over dsh-jobs-local.
// usage: node tool_parity.mjs <upstream dir> <workspace> <cases.json>
//   cases.json: [{"name", "tool", "args"}]; prints one JSON array, in case order.
import { readFileSync } from 'node:fs';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { resolve, dirname } from 'node:path';

const [upstream, workspace, casesFile] = process.argv.slice(2);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { ToolRuntime } = await load('dsh-tools');
const { LocalFileSystem } = await load('dsh-fs-local');

process.chdir(workspace);
const ctx = new Context();
const services = {
  systemPrompt: { tools() { return () => {}; }, section() { return () => {}; } },
  // dsh-shell-env's trusted DSH_* facts for an agent-less call (DSH_HOME aside).
  shellEnv: { collect() { return { DSH_SHELL: '1' }; } },
  web: {},
};
for (const [name, service] of Object.entries(services)) {
  ctx.provide(name);
  ctx.set(name, service);
}
ctx.plugin(LocalFileSystem, { cwd: workspace });
ctx.plugin(ToolRuntime);
ctx.plugin((await load('dsh-subprocess-local')).LocalSubprocessRuntime);
ctx.plugin((await load('dsh-bash-local')).LocalBashExecutor, { cwd: workspace });
ctx.plugin((await load('dsh-jobs-local')).LocalJobRegistry);
ctx.plugin(await load('dsh-tool-fs'), {});
ctx.plugin(await load('dsh-tool-fs-search'), { sampleOverCapGlobResults: true });
ctx.plugin(await load('dsh-tool-bash'), {});
ctx.plugin(await load('dsh-tool-jobs'), {});
await new Promise((r) => setTimeout(r, 100));
const tools = ctx.get('tools');

const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const [i, c] of cases.entries()) {
  const r = await tools.execute({ callId: `c${i}`, name: c.tool, arguments: c.args, signal: new AbortController().signal });
  const durable = { content: r.content, isError: r.isError, ...(r.meta !== undefined ? { meta: r.meta } : {}) };
  const def = tools.get(c.tool);
  out.push({
    name: c.name,
    isError: r.isError,
    content: r.content,
    error: r.error?.info ?? null,
    meta: r.meta ?? null,
    pending: def?.presentCall?.(c.args) ?? null,
    result: def?.presentResult?.(c.args, durable) ?? null,
  });
}
// Exit once the output is flushed (a pipe is asynchronous): background jobs may
// still run, and they are not part of the comparison.
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
