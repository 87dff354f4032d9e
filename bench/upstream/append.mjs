// Times the upstream dsh JSONL backend's durable append (each append() call
// returns once its batch is fsynced). usage:
//   node append.mjs <upstream dir> <events.jsonl> <batch size> <max events> [none|zstd]
// Prints the seconds the appends took (first token), then the events appended.
import { mkdtempSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, file, batchArg, maxArg, compression = 'none'] = process.argv.slice(2);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { SessionStore } = await load('dsh-session');
const { JsonlSessionPersistence } = await load('dsh-session-persistence-jsonl');

const batch = Number(batchArg);
const events = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, Number(maxArg)).map((l) => JSON.parse(l));
const root = mkdtempSync('/tmp/dsh-append-');
const ctx = new Context();
ctx.plugin(SessionStore);
await ctx.inject(['sessions'], async (c) => {
  const p = new JsonlSessionPersistence(c, { root, compression, packChunks: true });
  const meta = { version: 0, id: 'append-bench', createdAt: 1796000000000, cwd: '/home/dev/bench', delegationDepth: 0 };
  await p.create(meta);
  const t0 = performance.now();
  for (let i = 0; i < events.length; i += batch) await p.append(meta.id, events.slice(i, i + batch));
  const secs = (performance.now() - t0) / 1000;
  console.log(secs.toFixed(6), events.length);
});
