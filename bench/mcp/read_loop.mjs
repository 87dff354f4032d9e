// N sequential `read` calls of a one-line file through the official MCP TypeScript SDK
// client against one stdio server, after 200 warm-up calls; prints the mean µs per call.
// For comparing two builds of a server (run them alternately, several times) or
// profiling one (give `perf record … -- server …` as the command). `@DIR` in the
// arguments stands for the fresh workspace holding a.txt.
// usage: node read_loop.mjs <upstream dir> <server command> <calls> [server args…]
//   e.g. node read_loop.mjs "$UPSTREAM" build/cli/retrace 2000 --db @DIR/n.db --durability normal mcp --workspace @DIR
//        node read_loop.mjs "$UPSTREAM" "$NODE" 2000 bench/mcp/ts_server.mjs "$UPSTREAM" @DIR
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [upstream, command, calls, ...args] = process.argv.slice(2);
const sdk = (sub) => import(pathToFileURL(resolve(upstream, 'node_modules/@modelcontextprotocol/sdk/dist/esm', sub)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const dir = mkdtempSync(join(tmpdir(), 'retrace-read-loop-'));
writeFileSync(join(dir, 'a.txt'), 'hello\n');
const client = new Client({ name: 'retrace-read-loop', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args: args.map((a) => a.replaceAll('@DIR', dir)), stderr: 'ignore' }));
await client.listTools();
const read = { name: 'read', arguments: { file_path: 'a.txt' } };
for (let i = 0; i < 200; i++) await client.callTool(read);
const start = process.hrtime.bigint();
for (let i = 0; i < Number(calls); i++) await client.callTool(read);
console.log(`${(Number(process.hrtime.bigint() - start) / 1e3 / Number(calls)).toFixed(1)} us/call`);
await client.close();
rmSync(dir, { recursive: true, force: true });
