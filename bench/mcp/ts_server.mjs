// The baseline for bench/mcp/mcp_bench.mjs: the official MCP TypeScript SDK's own
// McpServer over stdio, recording nothing, serving two trivial tools with the shapes of
// retrace's: `read` (a small file, line-numbered; read-only) and `write` (a small file;
// a side effect). Each takes the same arguments and answers with the same content,
// value and output schema as retrace's: `read` the numbered lines with dsh's framing
// (path, offset, lines, totalLines; the bench reads a whole one-line file, so the
// tail always says end of file); `write` does the file work retrace's write does (and
// dsh-fs-local's writeFileAtomic): the text it replaces read as the diff basis, a
// temporary file, fsynced, renamed over the target (path, operation, before, after).
// So the two servers differ in the protocol and the recording only.
// usage: node ts_server.mjs <upstream dir> <workspace>
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, workspace] = process.argv.slice(2);
const sdk = (sub) => import(pathToFileURL(resolve(upstream, 'node_modules/@modelcontextprotocol/sdk/dist/esm', sub)).href);
const { McpServer } = await sdk('server/mcp.js');
const { StdioServerTransport } = await sdk('server/stdio.js');
const { z } = await import(pathToFileURL(resolve(upstream, 'node_modules/zod/index.js')).href);

let writes = 0;
const server = new McpServer({ name: 'ts-baseline', version: '1.0.0' });
server.registerTool('read', {
  title: 'Read file',
  description: 'Read a UTF-8 text file and return line-numbered content.',
  inputSchema: { file_path: z.string(), offset: z.number().optional(), limit: z.number().optional() },
  outputSchema: {
    path: z.string(), offset: z.number().int(),
    lines: z.array(z.object({ number: z.number().int(), text: z.string() }).strict()), totalLines: z.number().int(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ file_path, offset = 1, limit = 2000 }) => {
  const path = resolve(workspace, file_path);
  const all = readFileSync(path, 'utf8').split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
  const lines = all.slice(offset - 1, offset - 1 + limit).map((text, i) => ({ number: offset + i, text }));
  const numbered = lines.map((l) => `${l.number}: ${l.text}`).join('\n');
  const text = `<path>${path}</path>\n<type>file</type>\n<content>\n${numbered}\n\n(End of file - total ${all.length} lines)\n</content>`;
  return { content: [{ type: 'text', text }], structuredContent: { path, offset, lines, totalLines: all.length } };
});
server.registerTool('write', {
  title: 'Write file',
  description: 'Create or fully replace a UTF-8 text file.',
  inputSchema: { file_path: z.string(), content: z.string() },
  outputSchema: { path: z.string(), operation: z.enum(['create', 'update']), before: z.string().nullable(), after: z.string() },
}, async ({ file_path, content }) => {
  const path = resolve(workspace, file_path);
  let before = null;  // the diff basis: the text replaced
  try { before = readFileSync(path, 'utf8'); } catch {}
  const temp = `${path}.${process.pid}.${++writes}.tmp`;
  const fd = openSync(temp, 'wx', 0o666);
  writeSync(fd, content);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, path);
  const operation = before === null ? 'create' : 'update';
  const text = `<path>${path}</path>\n<type>file</type>\n<content>\n${before === null ? 'Created' : 'Updated'} file\n</content>`;
  return { content: [{ type: 'text', text }], structuredContent: { path, operation, before, after: content } };
});
await server.connect(new StdioServerTransport());
