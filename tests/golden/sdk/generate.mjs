// Regenerates the Code Mode SDK goldens: for every case, the schema set (`<case>.schemas.json`,
// the input `retrace sdk --schemas` reads) and the text the upstream renderers give for it
// (`renderToolsSdk` → `<case>.ts.txt`, `renderToolsSdkPy` → `<case>.py.txt`).
//   eval "$(bench/setup_upstream.sh)" && "$NODE" tests/golden/sdk/generate.mjs "$UPSTREAM"
// The cases are built here rather than written by hand: the deep ones are hundreds of levels.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve, dirname } from 'node:path';
import { upstreamTools } from '../cards/upstream_cards.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const upstream = process.argv[2];
const tools = await import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai/dsh-tools/lib/index.js')).href);

const obj = (properties, extra = {}) => ({ type: 'object', properties, ...extra });
const closed = (properties, extra = {}) => obj(properties, { additionalProperties: false, ...extra });
const str = (extra = {}) => ({ type: 'string', ...extra });
const tool = (name, parameters, output, description) =>
  (description === undefined ? { name, parameters, output } : { name, description, parameters, output });

// Nested chains built iteratively (the renderers must not recurse on them either).
function arrayChain(depth, leaf) {
  let node = leaf;
  for (let i = 0; i < depth; i++) node = { type: 'array', items: node };
  return node;
}
function objectChain(depth, field, leaf) {
  let node = leaf;
  for (let i = 0; i < depth; i++) node = closed({ [`${field}${depth - i}`]: node }, { required: [`${field}${depth - i}`] });
  return node;
}
function oneOfChain(depth) {
  let node = { type: 'null' };
  for (let i = 0; i < depth; i++) node = { oneOf: [{ type: 'integer', const: i }, node] };
  return node;
}

// A seeded random mix of everything above (mulberry32): 200 tools of nested schemas over a
// vocabulary of awkward names, descriptions and literals.
function randomTools(seed, count) {
  let a = seed;
  const rand = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const words = ['path', 'class', 'match', '_x', '__y', '__z__', 'a-b', '路径', 'größe', 'ﬁ', 'Ab', 'aB', '1st', '$', 'x y', '',
    'ǅ', 'ß', '😀', 'İ', 'ﾊ', 'k\u0301', 'None', 'type', 'items', 'n'.repeat(70)];
  const texts = [undefined, '', ' ', 'plain', 'two\nlines', 'star */ slash', 'q"uote\\', '\u0000nul', 'tab\tand\u00a0nbsp', '中文'];
  const literals = { string: ['a', 'b"c', '', '\u2028', 'ü'], number: [0, 1.5, -2, 1e21, 2 ** 60, 1e-7],
    integer: [0, 7, -9007199254740991, 2 ** 62], boolean: [true, false] };
  const node = (depth) => {
    const kind = depth > 5 ? pick(['string', 'number', 'integer', 'boolean', 'null', 'any'])
      : pick(['string', 'number', 'integer', 'boolean', 'null', 'any', 'array', 'array', 'object', 'object', 'object', 'oneOf']);
    let n;
    if (kind === 'any') n = {};
    else if (kind === 'oneOf') n = { oneOf: [node(depth + 1), node(depth + 1), ...(rand() < 0.3 ? [node(depth + 1)] : [])] };
    else if (kind === 'array') n = rand() < 0.2 ? { type: 'array' } : { type: 'array', items: node(depth + 1) };
    else if (kind === 'object') {
      const properties = {};
      const count = Math.floor(rand() * 4);
      for (let i = 0; i < count; i++) properties[pick(words) + (rand() < 0.5 ? '' : pick(words))] = node(depth + 1);
      n = { type: 'object', properties };
      const keys = Object.keys(properties);
      const required = keys.filter(() => rand() < 0.5);
      if (required.length > 0) n.required = required;
      if (rand() < 0.4) n.additionalProperties = rand() < 0.8 ? false : true;
      if (rand() < 0.1) delete n.properties;
    } else {
      n = { type: kind };
      if (kind !== 'null' && rand() < 0.3) n.const = pick(literals[kind]);
      else if (kind !== 'null' && rand() < 0.3) n.enum = [...new Set([pick(literals[kind]), pick(literals[kind])])];
    }
    const text = pick(texts);
    if (text !== undefined) n.description = text;
    return n;
  };
  const tools = [];
  for (let i = 0; i < count; i++) {
    const parameters = node(0);
    const t = { name: `${pick(words)}${pick(['', '_', '-', '.'])}${pick(words)}${i}`, parameters, output: node(0) };
    const text = pick(texts);
    if (text !== undefined) t.description = text;
    tools.push(t);
  }
  return tools;
}

const cases = {
  // No tools at all.
  empty: [],

  // The dsh reference tools as a default deployment registers them (dsh-tool-fs, -fs-search,
  // -bash, -web, -jobs): what the SDK of a real session reads like.
  reference: (await upstreamTools(upstream)).sdkSchemas(),

  // Tool names: bare, quoted, keywords, underscores, soft keywords, non-ASCII, NFKC-unstable,
  // case expansions, astral heads, and names that collapse to one class name.
  names: [
    tool('read_file', obj({ path: str({ description: 'Absolute path' }) }, { required: ['path'] }), str(), 'Read a file from disk.'),
    tool('my-tool', obj({}), { type: 'array' }, 'Exotic */ name.'),
    tool('Upper', obj({}), { type: 'null' }),
    tool('_private', obj({ a: str() }), str(), 'Leading underscore.'),
    tool('__dunder__', obj({}), str()),
    tool('class', obj({ x: { type: 'integer' } }), str(), 'A hard keyword.'),
    tool('match', obj({ pattern: str() }), str(), 'A soft keyword: bare in Python.'),
    tool('__debug__', obj({}), str()),
    tool('$dollar', obj({}), str(), 'Bare in TypeScript, not in Python.'),
    tool('123abc', obj({ a: str() }), str()),
    tool('', obj({ a: str() }), str(), 'The empty name.'),
    tool('a b', obj({}), str()),
    tool('路径工具', obj({ 路径: str({ description: '文件路径' }) }, { required: ['路径'] }), str(), '中文描述'),
    tool('über_tool', obj({ größe: { type: 'number' } }), str()),
    tool('ﬁle_tool', obj({ a: str() }), str(), 'NFKC-unstable name.'),
    tool('ǆ_digraph', obj({ a: str() }), str()),
    tool('ß_sharp', obj({ a: str() }), str()),
    tool('ŉ_apostrophe', obj({ a: str() }), str()),
    tool('😀emoji', obj({ a: str() }), str()),
    tool('𝒜script', obj({ a: str() }), str()),
    tool('foo_bar', obj({ a: str() }), obj({ b: str() })),
    tool('foo-bar', obj({ a: str() }), obj({ b: str() })),
    tool('FooBar', obj({ a: str() }), obj({ b: str() })),
    tool('foo__bar', obj({ a: str() }), str()),
    tool('Zebra', obj({}), str()),
    tool('zebra', obj({}), str()),
    tool('\u0301combining', obj({ a: str() }), str()),
    tool('x\u0301', obj({ a: str() }), str()),
    tool('ｆｕｌｌｗｉｄｔｈ', obj({}), str()),
    tool('tab\there', obj({}), str()),
    tool('ﾊﾝｶｸ', obj({ a: str() }), str()),
  ],

  // Descriptions: whitespace runs and kinds, comment closers, quotes and backslashes, control
  // characters, lone surrogates, whitespace-only and non-string descriptions.
  descriptions: [
    tool('a_ws', obj({ p: str({ description: '  many\n\tlines\r\n  and\u00a0nbsp\u2028ls\u2029ps\u3000ideo\ufeffbom  ' }) }), str(), 'Line one.\n\nLine   two.'),
    tool('b_closers', obj({ p: str({ description: 'ends */ and /* opens' }) }), str(), '*/ at the start */'),
    tool('c_quotes', obj({ p: str({ description: 'say "hi" \\ back' }) }), str(), 'Ends with a quote"'),
    tool('d_backslash', obj({}), str(), 'Ends with a backslash\\'),
    tool('e_controls', obj({ p: str({ description: 'nul\u0000 bell\u0007 esc\u001b del\u007f nel\u0085 c1\u009f' }) }), str(), 'ctl\u0001\u0002 end'),
    tool('f_surrogate', obj({ p: str({ description: 'lone \ud800 high and \udfff low, pair 😀' }) }), str(), 'lone\udc00'),
    tool('g_blank', obj({ p: str({ description: '   ' }), q: str({ description: '' }) }), str(), '   \n\t '),
    tool('h_empty', obj({}), str(), ''),
    tool('i_number', obj({}), str(), 42),
    tool('j_only_control', obj({ p: str({ description: ' \u0001 ' }) }), str(), '\u0002'),
    tool('k_zero_width', obj({ p: str({ description: 'zw\u200bsp\u200ejoin\u2060' }) }), str(), 'soft\u00adhyphen'),
    tool('l-exotic', obj({}), str(), '  spaced   exotic\ndescription  '),
    tool('m_title', obj({ p: str({ title: 'a title', description: 'described' }) }), str()),
  ],

  // Every construct of the schema subset, and where the two flavors degrade.
  types: [
    tool('scalars', closed({
      s: str(), n: { type: 'number' }, i: { type: 'integer' }, b: { type: 'boolean' }, z: { type: 'null' },
      sc: str({ const: 'x"y' }), se: str({ enum: ['a', 'b\nc', '\u2028', 'd\\'] }),
      nc: { type: 'number', const: 1.5 }, ne: { type: 'number', enum: [0, -3, 1e21, 1e-7, 2 ** 60, 2 ** 53, 0.1, 123456789012345680000] },
      ic: { type: 'integer', const: 9007199254740993 }, ie: { type: 'integer', enum: [1, 2, -9007199254740992] },
      bc: { type: 'boolean', const: true }, be: { type: 'boolean', enum: [false, true] },
      zc: { type: 'null', const: null }, ze: { type: 'null', enum: [null] },
      both: str({ enum: ['p', 'q'], const: 'q' }),
    }, { required: ['s', 'sc'] }), { type: 'integer', enum: [1, 2, 3] }, 'Scalars, consts and enums.'),
    tool('arrays', obj({
      bare: { type: 'array' },
      strs: { type: 'array', items: str() },
      union: { type: 'array', items: { oneOf: [str(), { type: 'number' }] } },
      lits: { type: 'array', items: str({ enum: ['a', 'b'] }) },
      objs: { type: 'array', items: obj({ k: str() }, { required: ['k'] }) },
      closedObjs: { type: 'array', items: closed({ k: str() }) },
      nested: { type: 'array', items: { type: 'array', items: { type: 'array', items: { type: 'boolean' } } } },
      anyItems: { type: 'array', items: { description: 'anything' } },
      openItems: { type: 'array', items: { type: 'object' } },
    }), { type: 'array', items: obj({ name: str() }, { required: ['name'] }) }),
    tool('objects', obj({
      open: obj({ k: { type: 'number', description: 'multi\nline' } }, { required: ['k'] }),
      closedEmpty: closed({}),
      openEmpty: obj({}),
      noProps: { type: 'object' },
      closedNoProps: { type: 'object', additionalProperties: false },
      explicitOpen: obj({ a: str() }, { additionalProperties: true }),
      deep: closed({ b: closed({ c: closed({ d: obj({ e: str() }) }) }) }),
      numericKeys: obj({ b: str(), 10: str(), 2: str(), a: str(), '01': str(), 4294967294: str(), 4294967295: str() }),
      anyv: { description: 'any value' },
      bare: {},
    }, { required: ['open'] }), closed({ kind: str({ const: 'background' }), jobId: str() }, { required: ['kind', 'jobId'] })),
    tool('fields', obj({
      class: str(), ok: str(),
    }), obj({ __token: str() })),
    tool('fields_ok', obj({
      match: str(), type: str(), _under: str(), __dunder__: str(), 路径: str(), größe: str(), case: str(), ___: str(),
    }), obj({ ﬁeld: str() })),
    tool('fields_exotic', obj({ 'a-b': str({ enum: ['x', 'y'] }), 'with space': str() }), obj({ __debug__: str() })),
    tool('unions', { oneOf: [closed({ kind: str({ const: 'a' }) }), closed({ kind: str({ const: 'b' }), x: obj({ y: str() }) })] },
      { oneOf: [str(), { type: 'null' }, obj({ a: { oneOf: [obj({ p: str() }), { type: 'array', items: { oneOf: [str(), { type: 'integer' }] } }] } })] }),
    tool('roots', str(), { type: 'array', items: { type: 'array' } }, 'A non-object parameter root.'),
    tool('invalid', obj({ p: { type: 'string', minLength: 1 } }), { type: ['string', 'null'] }, 'Unsupported keywords degrade.'),
    tool('invalid_enum', obj({ p: { type: 'integer', enum: [1.5] } }), { oneOf: [str()] }),
    tool('not_a_schema', 'text', 7),
    tool('null_schema', null, null),
    tool('annotation_only', { description: 'any' }, { title: 't', default: 1, examples: [1] }),
  ],

  // Depth: list nesting past Python's 180-level fallback, long class-name chains past the
  // 120-character cap, collisions at the cap, long unions, astral characters at the cut.
  deep: [
    tool('deep_list', obj({ l: arrayChain(200, str()) }), arrayChain(185, { type: 'integer', enum: [1] })),
    tool('deep_list_root', arrayChain(181, str()), arrayChain(179, str())),
    tool('deep_objects', objectChain(40, 'levelName', str()), objectChain(12, 'x', obj({ y: str() }))),
    tool('deep_union', oneOfChain(60), { oneOf: [closed({ a: str() }), closed({ a: str() }), closed({ a: str() })] }),
    tool('long_names_' + 'n'.repeat(130), obj({ ['field' + 'f'.repeat(120)]: obj({ inner: str() }), ['field' + 'f'.repeat(121)]: obj({ inner: str() }) }), str()),
    tool('astral_cut', obj({ ['p'.repeat(104) + '𝒜𝒜𝒜']: obj({ q: str() }), ['p'.repeat(105) + '𝒜𝒜𝒜']: obj({ q: str() }) }), str()),
    tool('collide', obj({ a_b: obj({ x: str() }), aB: obj({ x: str() }), 'a-b': str() }), obj({ a_b: obj({ x: str() }), AB: obj({ x: str() }) })),
    tool('collide2', obj({ args: obj({ x: str() }) }), str()),
    tool('collide2_args', obj({ x: str() }), str()),
  ],

  random: randomTools(20261204, 200),
};

for (const [name, schemas] of Object.entries(cases)) {
  writeFileSync(resolve(here, `${name}.schemas.json`), JSON.stringify(schemas, null, 1) + '\n');
  writeFileSync(resolve(here, `${name}.ts.txt`), tools.renderToolsSdk(schemas));
  writeFileSync(resolve(here, `${name}.py.txt`), tools.renderToolsSdkPy(schemas));
  console.error(`${name}: ${schemas.length} tools`);
}
