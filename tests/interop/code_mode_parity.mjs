// Runs run_code programs through upstream dsh-tools in `code` mode, on the
// worker-thread code runtime (@deepseek-ai/dsh-code-runtime-worker-thread) and
// the real tool packages (upstream_tools.mjs's composition, over the
// workspace), and prints what each gave: run_code's result (text, isError,
// error identity) and its sub-calls as the tools/result observers saw them
// (subCallId, name, arguments, isError, content) — what tool/code-dispatch logs.
// usage: node code_mode_parity.mjs <upstream dir> <workspace> <cases.json> <reset script>
//   cases.json: [{"name", "code"}]; the reset script restores the workspace before each case.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { composeTools } from './upstream_tools.mjs';

const [upstream, workspace, casesFile, reset] = process.argv.slice(2);
const { ctx, tools } = await composeTools(upstream, workspace, { codeMode: true });

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
