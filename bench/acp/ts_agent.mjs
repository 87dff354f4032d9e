// The comparison sides of bench/acp/acp_bench.mjs: an agent answering
// session/load by sending a prepared list of session/update payloads (read
// from a JSON file) and then {}, with no replay behind it.
//   sdk   the official SDK's own agent side (acp.agent()), which checks and
//         serializes every update: what a TypeScript agent pays to serve a load
//   raw   the frames serialized beforehand and written at once: the client's
//         cost alone, the floor any server meets
// usage: node ts_agent.mjs <upstream dir> <updates.json> sdk|raw
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, file, mode] = process.argv.slice(2);
const acp = await import(pathToFileURL(resolve(upstream, 'node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js')).href);
const updates = JSON.parse(readFileSync(file, 'utf8'));
const initialized = {
  protocolVersion: acp.PROTOCOL_VERSION,
  agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
  authMethods: [],
};

if (mode === 'raw') {
  let frames = '';
  for (const update of updates) {
    frames += JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'replay-bench', update } }) + '\n';
  }
  const answer = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const msg = JSON.parse(line);
    if (msg.method === 'initialize') answer(msg.id, initialized);
    if (msg.method === 'session/load') {
      process.stdout.write(frames);
      answer(msg.id, {});
    }
  }
} else {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  acp.agent({ name: 'ts-agent' })
    .onRequest(acp.methods.agent.initialize, () => initialized)
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      for (const update of updates) await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
      return {};
    })
    .connect(stream);
}
