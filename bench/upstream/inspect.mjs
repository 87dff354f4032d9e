// Times the upstream dsh JSONL backend's inspect() on one log file.
// usage: node inspect.mjs <upstream node_modules parent> <file.jsonl> <session id> <cwd>
// Prints the seconds inspect() took (first token), then the event count.
import { pathToFileURL } from 'node:url';
import { dshRootFor } from './dsh_root.mjs';
import { resolve } from 'node:path';

const [upstream, file, id, cwd] = process.argv.slice(2);
const load = (pkg, sub = 'lib/index.js') =>
  import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, sub)).href);
const { Context } = await load('cordis');
const { SessionStore } = await load('dsh-session');
const { JsonlSessionPersistence } = await load('dsh-session-persistence-jsonl');

const root = dshRootFor(file, id, cwd);

const ctx = new Context();
ctx.plugin(SessionStore);
await ctx.inject(['sessions'], async (c) => {
  const p = new JsonlSessionPersistence(c, { root, compression: 'none' });
  const t0 = performance.now();
  const { events } = await p.inspect(id);
  const secs = (performance.now() - t0) / 1000;
  console.log(secs.toFixed(6), events.length);
});
