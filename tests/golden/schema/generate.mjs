// Regenerates expected.json from cases.json by running upstream dsh-tools'
// own schema functions (parameterSchemaSpecToJsonSchema /
// valueSchemaSpecToJsonSchema, validateArgs / validateJsonSchemaValue).
//   eval "$(bench/setup_upstream.sh)" && "$NODE" tests/golden/schema/generate.mjs "$UPSTREAM"
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { resolve, dirname } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const tools = await import(pathToFileURL(resolve(process.argv[2], 'node_modules/@deepseek-ai/dsh-tools/lib/index.js')).href);
const cases = JSON.parse(readFileSync(resolve(here, 'cases.json'), 'utf8'));

const expected = cases.map((c) => {
  const out = { name: c.name };
  let schema;
  try {
    schema = c.kind === 'parameters' ? tools.parameterSchemaSpecToJsonSchema(c.spec) : tools.valueSchemaSpecToJsonSchema(c.spec);
    out.projection = JSON.stringify(schema);
  } catch (e) {
    out.error = `${e.name}: ${e.message}`;
    return out;
  }
  out.violations = (c.values ?? []).map((v) =>
    c.kind === 'parameters' ? tools.validateArgs(c.spec, v) : tools.validateJsonSchemaValue(schema, v, 'value'));
  return out;
});
writeFileSync(resolve(here, 'expected.json'), JSON.stringify(expected, null, 1) + '\n');
console.log(`wrote ${expected.length} cases`);
