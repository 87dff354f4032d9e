// Regenerates the expected tool cards of every fixture by running the upstream dsh tool
// packages' own presenters (presentCall / presentResult of the registered definitions)
// on the logged arguments and durable results.
//   eval "$(bench/setup_upstream.sh)" && "$NODE" tests/golden/cards/generate.mjs "$UPSTREAM"
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve, dirname } from 'node:path';
import { upstreamTools, eventsOfLines, cardsOf } from './upstream_cards.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const upstream = process.argv[2];

const tools = await upstreamTools(upstream);
console.error('registered:', tools.schemas().map((s) => s.name).join(', '));

// The parameter schemas the presenters soft-validate against, as this deployment registers them.
writeFileSync(resolve(here, 'schemas.json'),
  JSON.stringify(Object.fromEntries(tools.schemas().map((t) => [t.name, t.parameters])), null, 1) + '\n');

const fixtures = resolve(here, '../../fixtures');
for (const file of readdirSync(fixtures).filter((f) => f.endsWith('.jsonl')).sort()) {
  const lines = readFileSync(resolve(fixtures, file), 'utf8').split('\n').filter((l) => l.length > 0);
  const { sessionId, events } = eventsOfLines(lines);
  const doc = cardsOf(sessionId, events, tools);
  writeFileSync(resolve(here, file.replace(/\.jsonl$/, '.cards.json')), JSON.stringify(doc) + '\n');
  console.error(`${file}: ${doc.calls.length} calls`);
}
