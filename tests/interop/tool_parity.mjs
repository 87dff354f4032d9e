// Runs tool calls through the upstream dsh tool packages for real and prints
// what a session would record and show for each: the durable result (content,
// isError, error identity, meta) and the cards. The composition is
// upstream_tools.mjs's.
// usage: node tool_parity.mjs <upstream dir> <workspace> <cases.json>
//   cases.json: [{"name", "tool", "args"}]; prints one JSON array, in case order.
import { readFileSync } from 'node:fs';
import { composeTools } from './upstream_tools.mjs';

const [upstream, workspace, casesFile] = process.argv.slice(2);
const { tools } = await composeTools(upstream, workspace);

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
