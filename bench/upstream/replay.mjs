// Times file in → cards out through the upstream stack: dsh's JSONL persistence load()
// (its reader, checks and repair) and the dsh tool packages' own presenters, then
// JSON.stringify of the card document (tests/golden/cards/upstream_cards.mjs).
// usage: node replay.mjs <upstream dir> <file.jsonl> <session id> <cwd> [out.json]
// Prints the seconds (first token), then the calls; writes the cards to out.json if given.
import { writeFileSync } from 'node:fs';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { dshRootFor } from './dsh_root.mjs';
import { resolve, dirname } from 'node:path';

const [upstream, file, id, cwd, out] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const { upstreamTools, cardsOf } = await import(pathToFileURL(resolve(here, '../../tests/golden/cards/upstream_cards.mjs')).href);
const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
const { Context } = await load('cordis');
const { SessionStore } = await load('dsh-session');
const { JsonlSessionPersistence } = await load('dsh-session-persistence-jsonl');

const tools = await upstreamTools(upstream);
const root = dshRootFor(file, id, cwd);

const ctx = new Context();
ctx.plugin(SessionStore);
await ctx.inject(['sessions'], async (c) => {
  const p = new JsonlSessionPersistence(c, { root, compression: 'none' });
  const t0 = performance.now();
  const { events } = await p.load(id);
  const doc = cardsOf(id, events, tools);
  const text = JSON.stringify(doc) + '\n';
  const secs = (performance.now() - t0) / 1000;
  if (out) writeFileSync(out, text);
  console.log(secs.toFixed(6), doc.calls.length);
});
