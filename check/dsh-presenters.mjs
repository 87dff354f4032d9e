#!/usr/bin/env node
// retrace's reference presenters program for dsh tool packages: it loads the
// packages named on its command line through dsh-tools' own ToolRuntime, as a
// deployment registers them, and answers retrace's presenter questions with
// their real presentCall / presentResult (docs/REPLAY-STABILITY.md,
// "External presenters").
//
//   retrace check --presenters-cmd \
//     'node check/dsh-presenters.mjs --modules ./node_modules @acme/dsh-tool-forecast' logs/
//
// Usage: dsh-presenters.mjs [--modules DIR] PACKAGE[=CONFIG_JSON]...
//   --modules DIR   the node_modules directory the packages (and @deepseek-ai/dsh-tools and
//                   @deepseek-ai/cordis) are loaded from; default: ./node_modules
//   PACKAGE         a dsh tool package (a cordis plugin); CONFIG_JSON is its plugin config
//
// A package whose tools' arguments changed exports `revisions`, keyed by tool
// name (docs/REPLAY-STABILITY.md, "When a tool changes"):
//   export const revisions = { forecast: { current: 3,
//     parameters: { 1: { town: { type: 'string', required: true } }, 2: { ... } },  // ParameterSchemaSpec
//     steps: [{ from: 1, to: 2, arguments: (a) => ({ city: a.town }), meta: (m) => m },
//             { from: 2, to: 3, arguments: (a) => ({ city: { name: a.city } }) }] } };
// Steps are pure functions of their input; retrace checks the chain.
//
// The services a plugin injects (fs, shell, web, jobs, ...) are inert stand-ins:
// presenters are pure and never call them, and registration only needs them present.
// stdout carries protocol lines only; diagnostics go to stderr.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';

function usage(message) {
  process.stderr.write(`dsh-presenters: ${message}\n` +
    'usage: dsh-presenters.mjs [--modules DIR] PACKAGE[=CONFIG_JSON]...\n');
  process.exit(2);
}

function parseCommandLine(argv) {
  let modules = resolve('node_modules');
  const packages = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--modules') {
      if (i + 1 >= argv.length) usage('--modules needs a directory');
      modules = resolve(argv[++i]);
    } else if (argv[i].startsWith('-')) {
      usage(`unknown option ${argv[i]}`);
    } else {
      // A scoped name starts with '@', so the config starts at the first '=' after it.
      const eq = argv[i].indexOf('=', 1);
      const name = eq < 0 ? argv[i] : argv[i].slice(0, eq);
      let config = {};
      if (eq >= 0) {
        try { config = JSON.parse(argv[i].slice(eq + 1)); } catch (e) { usage(`the config of ${name} is not JSON: ${e.message}`); }
      }
      packages.push({ name, config });
    }
  }
  if (packages.length === 0) usage('name at least one dsh tool package');
  return { modules, packages };
}

// Loads packages from `modules` as `import` would from a file beside it.
function loaderFor(modules) {
  const require = createRequire(resolve(modules, '..', 'retrace-dsh-presenters.js'));
  const locate = (pkg) => {
    try { return require.resolve(pkg); } catch { throw new Error(`cannot find ${pkg} under ${modules}`); }
  };
  return {
    load: async (pkg) => import(pathToFileURL(locate(pkg)).href),
    version: (pkg) => {
      try { return JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version; } catch { return '?'; }
    },
  };
}

// Inert stand-ins for the services dsh's tool plugins inject. The ones whose methods a plugin
// calls while registering get those methods (each returns a no-op disposer); every other
// service is an empty object, so that a plugin's feature checks find no optional capability
// (no sandbox, say) and it registers the schemas of a default deployment.
const noop = () => () => {};
const inertServices = {
  systemPrompt: () => ({ tools: noop, section: noop }),
  jobs: () => ({ attachController: noop, onJobDone: noop, list: () => [] }),
};
const inert = (service) => (inertServices[service] ?? (() => ({})))();

function injectedNames(plugin) {
  const inject = plugin.inject ?? plugin.default?.inject ?? [];
  return Array.isArray(inject) ? inject : Object.keys(inject);
}

const settle = () => new Promise((r) => setTimeout(r, 50));

// The ToolRuntime with every package registered, and each tool's revision (its package@version).
async function loadTools({ modules, packages }) {
  const loader = loaderFor(modules);
  const { Context } = await loader.load('@deepseek-ai/cordis');
  const { ToolRuntime, parameterSchemaSpecToJsonSchema } = await loader.load('@deepseek-ai/dsh-tools');
  const ctx = new Context();
  const plugins = [];
  for (const p of packages) plugins.push({ ...p, plugin: await loader.load(p.name) });
  const provided = new Set(['tools']);
  // The runtime's own services too: a package that injects only `tools` must still see it start.
  for (const plugin of [ToolRuntime, ...plugins.map((p) => p.plugin)]) {
    for (const service of injectedNames(plugin)) {
      if (provided.has(service)) continue;
      provided.add(service);
      ctx.provide(service);
      ctx.set(service, inert(service));
    }
  }
  ctx.plugin(ToolRuntime);
  await settle();
  const tools = ctx.get('tools');
  const revision = new Map();
  const revisions = new Map();  // tool → its package's `revisions` entry
  for (const { plugin } of plugins) {
    const declared = plugin.revisions ?? plugin.default?.revisions ?? {};
    for (const [tool, spec] of Object.entries(declared)) revisions.set(tool, spec);
  }
  for (const { name, config, plugin } of plugins) {
    ctx.plugin(plugin, config);
    await settle();
    const before = revision.size;
    for (const s of tools.schemas()) if (!revision.has(s.name)) revision.set(s.name, `${name}@${loader.version(name)}`);
    if (revision.size === before) {
      process.stderr.write(`dsh-presenters: warning: ${name} registered no tool (a config it refuses, or a service ` +
                           'it calls while registering that this program does not stand in for)\n');
    }
  }
  return { tools, revision, revisions, toJsonSchema: parameterSchemaSpecToJsonSchema };
}

// A tool's `revisions` as the protocol lists them: the older schemas as raw JSON Schema.
function revisionsListing(spec, toJsonSchema) {
  const parameters = {};
  for (const [rev, dsl] of Object.entries(spec.parameters ?? {})) parameters[rev] = toJsonSchema(dsl);
  const steps = spec.steps ?? [];
  return {
    current: spec.current,
    parameters,
    metaSteps: steps.filter((s) => typeof s.meta === 'function').map((s) => s.from),
  };
}

function listing({ tools, revision, revisions, toJsonSchema }) {
  return {
    tools: tools.schemas().map((s) => {
      const def = tools.get(s.name);
      const tool = {
        name: s.name,
        parameters: s.parameters,
        revision: revision.get(s.name),
        presentCall: typeof def?.presentCall === 'function',
        presentResult: typeof def?.presentResult === 'function',
      };
      if (revisions.has(s.name)) tool.revisions = revisionsListing(revisions.get(s.name), toJsonSchema);
      return tool;
    }),
  };
}

// One step of a tool's chain: {value} from `from`'s value.
function upcast(registered, params) {
  const spec = registered.revisions.get(params?.tool);
  const step = spec?.steps?.find((s) => s.from === params?.from);
  const fn = params?.kind === 'meta' ? step?.meta : step?.arguments;
  if (typeof fn !== 'function') {
    const e = new Error(`no ${params?.kind} step from revision ${params?.from} of ${params?.tool}`);
    e.code = -32602;
    throw e;
  }
  return { value: fn(structuredClone(params.value)) };
}

function present(registered, method, params) {
  const def = registered.tools.get(params?.tool);
  if (def === undefined) throw new Error(`no tool ${params?.tool}`);
  const view = method === 'presentCall' ? def.presentCall?.(params.args) : def.presentResult?.(params.args, params.result);
  return { view: view ?? null };
}

function answer(registered, request) {
  switch (request.method) {
    case 'initialize': return listing(registered);
    case 'presentCall':
    case 'presentResult': return present(registered, request.method, request.params);
    case 'upcast': return upcast(registered, request.params);
    default: {
      const e = new Error(`unknown method ${request.method}`);
      e.code = -32601;
      throw e;
    }
  }
}

const registered = await loadTools(parseCommandLine(process.argv.slice(2))).catch((e) => {
  process.stderr.write(`dsh-presenters: ${e.message}\n`);
  process.exit(1);
});
const out = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  let request;
  try { request = JSON.parse(line); } catch (e) {
    out({ id: null, error: { code: -32700, message: `not JSON: ${e.message}` } });
    continue;
  }
  try {
    out({ id: request.id, result: answer(registered, request) });
  } catch (e) {
    out({ id: request.id, error: { code: e?.code ?? -32000, message: String(e?.message ?? e) } });
  }
}
