// Loads a retrace-exported dsh root with the real dsh packages: the JSONL
// persistence backend (dsh's reader, Session construction with its checks,
// crash repair) and then the session invariant companion (dsh-session/
// invariant under dsh-invariants) over every loaded event.
// usage: node dsh_load.mjs <dir holding node_modules/@deepseek-ai> <dsh root> <session id> [none|zstd]
// Prints {"events":N,"types":{...}} and exits 0, or prints the error and exits 1.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, root, id, compression = 'none'] = process.argv.slice(2);
const load = (pkg, sub = 'lib/index.js') =>
  import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, sub)).href);
const { Context } = await load('cordis');
const { SessionStore } = await load('dsh-session');
const SessionInvariant = await load('dsh-session', 'lib/invariant.js');
const { InvariantRegistry } = await load('dsh-invariants');
const { JsonlSessionPersistence } = await load('dsh-session-persistence-jsonl');

const ctx = new Context();
ctx.plugin(SessionStore);
ctx.plugin(InvariantRegistry);
ctx.plugin(SessionInvariant);
process.exitCode = 1;  // until the log has loaded and passed
await ctx.inject(['sessions', 'invariants'], async (c) => {
  try {
    const p = new JsonlSessionPersistence(c, { root, compression });
    const { events } = await p.load(id);
    // Wait until the companion is installed, then publish the loaded log as a
    // seeded session: the companion validates every event on session/created.
    for (let i = 0; i < 100 && !c.invariants.registrations.has('@deepseek-ai/dsh-session'); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 50));
    c.sessions.create(`${id}:invariant-check`, { seed: events });
    const types = {};
    for (const e of events) types[e.type] = (types[e.type] ?? 0) + 1;
    console.log(JSON.stringify({ events: events.length, types }));
    process.exitCode = 0;
  } catch (error) {
    console.log(`dsh refused the log: ${error?.stack ?? error}`);
  }
});
