// The upstream composition the live parity scripts run tools in: dsh-tools'
// ToolRuntime; dsh-tool-fs on dsh-fs-local's LocalFileSystem rooted at the
// workspace; dsh-tool-fs-search and dsh-tool-bash over dsh-subprocess-local
// and dsh-bash-local (cwd = the workspace); dsh-tool-jobs over dsh-jobs-local.
// With `codeMode`, the registry presents `code` and runs programs on
// dsh-code-runtime-worker-thread. Returns the cordis context and `tools`.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

export async function composeTools(upstream, workspace, { codeMode = false } = {}) {
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
  if (codeMode) ctx.plugin((await load('dsh-code-runtime-worker-thread')).WorkerThreadCodeRuntime, {});
  ctx.plugin(ToolRuntime, codeMode ? { mode: 'code' } : {});
  ctx.plugin((await load('dsh-subprocess-local')).LocalSubprocessRuntime);
  ctx.plugin((await load('dsh-bash-local')).LocalBashExecutor, { cwd: workspace });
  ctx.plugin((await load('dsh-jobs-local')).LocalJobRegistry);
  ctx.plugin(await load('dsh-tool-fs'), {});
  ctx.plugin(await load('dsh-tool-fs-search'), { sampleOverCapGlobResults: true });
  ctx.plugin(await load('dsh-tool-bash'), {});
  ctx.plugin(await load('dsh-tool-jobs'), {});
  await new Promise((r) => setTimeout(r, 100));
  return { ctx, tools: ctx.get('tools') };
}
