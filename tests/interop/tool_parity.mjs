// Runs tool calls through the upstream dsh tool packages for real (dsh-tools'
// ToolRuntime, dsh-tool-fs on dsh-fs-local's LocalFileSystem rooted at the
// workspace) and prints what a session would record and show for each: the
// durable result (content, isError, error identity, meta) and the cards.
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
  shell: {}, shellEnv: {}, subprocess: {}, web: {},
};
for (const [name, service] of Object.entries(services)) {
  ctx.provide(name);
  ctx.set(name, service);
}
ctx.plugin(LocalFileSystem, { cwd: workspace });
ctx.plugin(ToolRuntime);
ctx.plugin(await load('dsh-tool-fs'), {});
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
console.log(JSON.stringify(out));
