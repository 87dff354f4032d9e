// What the MCP benchmarks share: the official SDK client from the upstream
// directory (bench/setup_upstream.sh) and the two trivial tool calls.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// `read` of a one-line file (read-only) and `write` of one (a side effect); the
// workspace holds a.txt.
export const TOOLS = {
  read: { name: 'read', arguments: { file_path: 'a.txt' } },
  write: { name: 'write', arguments: { file_path: 'b.txt', content: 'hello\n' } },
};

// The SDK's Client and StdioClientTransport.
export async function loadClientSdk(upstream) {
  const sdk = (sub) => import(pathToFileURL(resolve(upstream, 'node_modules/@modelcontextprotocol/sdk/dist/esm', sub)).href);
  const { Client } = await sdk('client/index.js');
  const { StdioClientTransport } = await sdk('client/stdio.js');
  return { Client, StdioClientTransport };
}
