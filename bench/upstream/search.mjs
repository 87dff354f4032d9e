// Runs search requests through the upstream dsh query service
// (dsh-session-query-sqlite on node:sqlite) over the sessions of a dsh root.
// usage: node search.mjs <upstream node_modules parent> <dsh root> <index.db> <requests.json>
// requests.json: [{query, sessionId?, limit?, types?, surfaces?}, ...]; exact reads are
// {op: 'readEvent'|'traceEvent'|'traceSession', sessionId, seq?, before?, after?}.
// Prints JSON: {firstSeconds (the first request, which builds the index), results:
// [{seconds, hits: [{sessionId, seq, type, surface, snippet}], error?}]}.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';

const [upstream, root, index, requestsFile] = process.argv.slice(2);
const load = (pkg, sub = 'lib/index.js') =>
  import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, sub)).href);
const { Context } = await load('cordis');
const { SessionStore } = await load('dsh-session');
const { JsonlSessionPersistence } = await load('dsh-session-persistence-jsonl');
const { SqliteSessionQueryEngine } = await load('dsh-session-query-sqlite');
const requests = JSON.parse(readFileSync(requestsFile, 'utf8'));

const ctx = new Context();
ctx.plugin(SessionStore);
ctx.plugin(JsonlSessionPersistence, { root, compression: 'none' });
ctx.plugin(SqliteSessionQueryEngine, { path: index });

function filters(r) {
  const f = [];
  if (r.types) f.push({ kind: 'type', values: r.types });
  if (r.surfaces) f.push({ kind: 'surface', values: r.surfaces });
  return f;
}

function hit(h) {
  return { sessionId: h.sessionId, seq: h.seq, type: h.type, surface: h.surface, snippet: h.snippet };
}

await new Promise((done) => {
  ctx.inject(['sessionQuery'], async (c) => {
    const q = c.sessionQuery;
    const results = [];
    let firstSeconds;
    for (const r of requests) {
      const t0 = performance.now();
      try {
        if (r.op) {  // an exact read: its result as is
          const out = r.op === 'traceSession' ? await q.traceSession(r.sessionId)
            : r.op === 'traceEvent' ? await q.traceEvent({ sessionId: r.sessionId, seq: r.seq })
            : await q.readEvent({ sessionId: r.sessionId, seq: r.seq, before: r.before, after: r.after });
          results.push({ seconds: (performance.now() - t0) / 1000, result: out });
          continue;
        }
        const page = r.sessionId
          ? await q.searchEvents({ sessionId: r.sessionId, query: r.query, filters: filters(r), limit: r.limit })
          : await q.searchSessions({ query: r.query, eventFilters: filters(r), limit: r.limit });
        const seconds = (performance.now() - t0) / 1000;
        firstSeconds ??= seconds;
        results.push({ seconds, hits: page.items.map((i) => hit(r.sessionId ? i : i.bestMatch)) });
      } catch (e) {
        results.push({ seconds: (performance.now() - t0) / 1000, error: e.code ?? String(e) });
      }
    }
    // Exit only once the output is flushed: a pipe is written asynchronously.
    process.stdout.write(JSON.stringify({ firstSeconds, results }) + '\n', () => done());
  });
});
process.exit(0);
