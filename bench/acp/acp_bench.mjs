// session/load delivered to the official ACP TypeScript SDK client
// (@agentclientprotocol/sdk 2.4.0, which parses and checks every update), side
// by side in one run: `retrace acp` replaying a stored session from its
// database, and two agents sending the very updates retrace sent, from memory
// (bench/acp/ts_agent.mjs): the SDK's own agent side, and the frames written
// at once — the client's cost alone, which no server can go under. A last
// agent writes the tool-call updates alone, prepared the same way: the client's
// cost of the tool calls themselves, the ceiling on tool calls/s for any session
// with this many. Servers alternate; the median of --reps loads is shown.
// Time to the last update is the load's round trip: the response follows it.
//   node acp_bench.mjs <upstream dir> <retrace binary> <db> <session id> [--reps N]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
const [upstream, retrace, db, session] = args;
const reps = Number(args[args.indexOf('--reps') + 1] ?? 5) || 5;
const acp = await import(pathToFileURL(resolve(upstream, 'node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js')).href);
const here = dirname(fileURLToPath(import.meta.url));

// Connects the SDK client to a spawned agent; returns {load(), close()}.
async function connect(command, argv) {
  const child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  let updates = [];
  let agentReady;
  const ready = new Promise((r) => { agentReady = r; });
  let finish;
  const done = new Promise((r) => { finish = r; });
  const app = acp.client({ name: 'acp-bench' })
    .onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params.update); });
  const connection = app.connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { _meta: { terminal_output: true } },
      clientInfo: { name: 'acp-bench', version: '1' },
    });
    agentReady(agent);
    await done;
  });
  const agent = await ready;
  return {
    async load() {
      updates = [];
      const start = process.hrtime.bigint();
      await agent.request(acp.methods.agent.session.load, { sessionId: session, cwd: '/', mcpServers: [] });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      return { seconds, updates };
    },
    async close() { finish(); await connection; child.kill(); },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ours = await connect(retrace, ['--db', db, 'acp']);
const first = await ours.load();  // warm-up; its updates feed the comparison agent
const toolCalls = first.updates.filter((u) => u.sessionUpdate === 'tool_call').length;
const file = join(mkdtempSync(join(tmpdir(), 'acp-bench-')), 'updates.json');
writeFileSync(file, JSON.stringify(first.updates));
const toolsFile = join(dirname(file), 'tool-calls.json');
const toolUpdates = first.updates.filter((u) => u.sessionUpdate.startsWith('tool_call'));
writeFileSync(toolsFile, JSON.stringify(toolUpdates));
const others = {};
for (const [mode, agentArgs] of [['sdk', [file, 'sdk']], ['raw', [file, 'raw']], ['tools', [toolsFile, 'raw']]]) {
  others[mode] = await connect(process.execPath, [join(here, 'ts_agent.mjs'), upstream, ...agentArgs]);
  await others[mode].load();
}
const times = { retrace: [], sdk: [], raw: [], tools: [] };
for (let i = 0; i < reps; i++) {
  times.retrace.push((await ours.load()).seconds);
  for (const mode of ['sdk', 'raw', 'tools']) times[mode].push((await others[mode].load()).seconds);
}
await ours.close();
for (const mode of ['sdk', 'raw', 'tools']) await others[mode].close();
const bytes = Buffer.byteLength(JSON.stringify(first.updates));
console.log(`session ${session}: ${first.updates.length} updates, ${toolCalls} tool calls, ${(bytes / 1e6).toFixed(1)} MB of updates; median of ${reps}`);
console.log('server                               time to last update   tool calls/s   updates/s');
for (const [name, label] of [['retrace', 'retrace acp (replay from the store)'], ['sdk', 'SDK agent (prepared updates)'],
                             ['raw', 'prepared frames (the client alone)'],
                             ['tools', 'prepared tool-call frames only']]) {
  const t = median(times[name]);
  console.log(`${label.padEnd(37)}${(t * 1000).toFixed(1).padStart(10)} ms   ${Math.round(toolCalls / t).toString().padStart(12)}   ${Math.round((name === 'tools' ? toolUpdates : first.updates).length / t).toString().padStart(9)}`);
}
process.exit(0);
