// Drives `retrace acp` with the official ACP TypeScript SDK client
// (@agentclientprotocol/sdk 2.x: acp.client()...connectWith), as an editor
// would, and prints what the client received, after the SDK's own parsing.
// One scenario per run:
//   history <terminal:0|1>   initialize (advertising _meta.terminal_output or not),
//                            session/list page by page, session/load of every session;
//                            prints {init, pages, sessions, loads: {id: [update…]}}
//   errors                   an unknown session (-32002), session/new and session/prompt
//                            refused, a bad cursor; the server answers each and goes on
//   firstpage                with the default page size, one session/list without a cursor,
//                            as Zed's import asks; prints the count, whether a cursor came, seconds
//   bench <session> <reps>   session/load of one session <reps> times; prints the
//                            tool calls and updates received and the seconds each took
// usage: node acp_client.mjs <upstream dir> <retrace binary> <db> <scenario> [args…]
// Exits 0 after printing, or prints the failure and exits 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, retrace, db, scenario, ...rest] = process.argv.slice(2);
const acp = await import(pathToFileURL(resolve(upstream, 'node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js')).href);

const pageSize = scenario === 'firstpage' ? [] : ['--page-size', '2'];
const child = spawn(retrace, ['--db', db, 'acp', ...pageSize], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => { stderr += d; });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

let updates = [];
const app = acp.client({ name: 'retrace-sdk-test' })
  .onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params); })
  .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' } }));

const initialize = (agent, terminal) => agent.request(acp.methods.agent.initialize, {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: terminal ? { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true } } : {},
  clientInfo: { name: 'retrace-sdk-test', version: '1.0.0' },
});

// The JSON-RPC error a request was refused with.
const refusal = async (promise) => {
  try {
    await promise;
  } catch (e) {
    return { code: e.code, message: e.message };
  }
  throw new Error('the request was not refused');
};

const scenarios = {
  async history(agent, terminal) {
    const init = await initialize(agent, terminal === '1');
    const pages = [];
    const sessions = [];
    let cursor;
    do {
      const page = await agent.request(acp.methods.agent.session.list, cursor ? { cursor } : {});
      pages.push(page.sessions.length);
      sessions.push(...page.sessions);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const loads = {};
    for (const s of sessions) {
      updates = [];
      const answer = await agent.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd: s.cwd, mcpServers: [] });
      assert.deepEqual(answer ?? {}, {});
      for (const u of updates) assert.equal(u.sessionId, s.sessionId);
      loads[s.sessionId] = updates.map((u) => u.update);
    }
    // A filter by cwd lists only the sessions recorded there.
    const cwd = sessions[0]?.cwd;
    const filtered = cwd ? (await agent.request(acp.methods.agent.session.list, { cwd })).sessions : [];
    return { init, pages, sessions, loads, filtered: { cwd, ids: filtered.map((s) => s.sessionId) } };
  },
  async errors(agent) {
    await initialize(agent, false);
    const out = {};
    out.unknown = await refusal(agent.request(acp.methods.agent.session.load, { sessionId: 'no-such-session', cwd: '/tmp', mcpServers: [] }));
    out.pathLike = await refusal(agent.request(acp.methods.agent.session.load, { sessionId: '/etc/passwd', cwd: '/tmp', mcpServers: [] }));
    out.sessionNew = await refusal(agent.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] }));
    out.prompt = await refusal(agent.request(acp.methods.agent.session.prompt, { sessionId: 'x', prompt: [{ type: 'text', text: 'hi' }] }));
    out.cursor = await refusal(agent.request(acp.methods.agent.session.list, { cursor: 'not-a-cursor' }));
    // Still serving.
    out.listAfter = (await agent.request(acp.methods.agent.session.list, {})).sessions.length;
    return out;
  },
  async firstpage(agent) {
    await initialize(agent, false);
    const start = process.hrtime.bigint();
    const page = await agent.request(acp.methods.agent.session.list, {});
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { count: page.sessions.length, cursor: page.nextCursor != null, seconds,
      titled: page.sessions.filter((s) => typeof s.title === 'string').length };
  },
  async bench(agent, session, reps) {
    await initialize(agent, true);
    const runs = [];
    for (let i = 0; i < Number(reps); i++) {
      updates = [];
      const start = process.hrtime.bigint();
      await agent.request(acp.methods.agent.session.load, { sessionId: session, cwd: '/', mcpServers: [] });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      runs.push({ seconds, updates: updates.length, toolCalls: updates.filter((u) => u.update.sessionUpdate === 'tool_call').length });
    }
    return { runs };
  },
};

try {
  const run = scenarios[scenario];
  if (!run) throw new Error(`unknown scenario ${scenario}`);
  let result;
  await app.connectWith(stream, async (agent) => { result = await run(agent, ...rest); });
  process.stdout.write(JSON.stringify({ ok: true, ...result }) + '\n');
  child.kill();
  process.exit(0);
} catch (e) {
  process.stdout.write(`FAILED: ${e.stack ?? e}\nretrace stderr:\n${stderr}\n`);
  child.kill();
  process.exit(1);
}
