// The child side of a retrace Code Mode run in Node (TypeScript, type-stripped).
// retrace starts `node --input-type=module -e <this file>` in an empty
// environment, with a private socket on fd 3 (newline-delimited JSON):
//   host → child: {"type":"start","code","namespaces":[{global,names,errorClass?}]}
//                 {"type":"reply","id","ok":true,"value"} | {"type":"reply","id","ok":false,"message"}
//   child → host: {"type":"log","text"} {"type":"call","id","global","name","args"}
//                 {"type":"done","value"?} | {"type":"done","error":{kind,message}}
// The host treats every line as hostile (tools/code_runtime.cc); this side
// only has to be correct. A value that is not lossless JSON never crosses:
// such call arguments reject in the program, a completion is invalid-output.
import { stripTypeScriptTypes } from 'node:module';
import { Socket } from 'node:net';
import { inspect } from 'node:util';

const channel = new Socket({ fd: 3, readable: true, writable: true });
const send = (message) => channel.write(`${JSON.stringify(message)}\n`);

// Lossless JSON: plain objects and dense arrays of finite numbers (not -0),
// strings, booleans and null; no cycles. Iterative.
function isLossless(root) {
  const seen = new Set();
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v) || Object.is(v, -0)) return false;
      continue;
    }
    if (typeof v !== 'object' || seen.has(v)) return false;
    seen.add(v);
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return false;
      for (let i = 0; i < v.length; i++) {
        if (!Object.hasOwn(v, i)) return false;
        stack.push(v[i]);
      }
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key !== 'string') return false;
      stack.push(v[key]);
    }
  }
  return true;
}

const INSPECT_OPTIONS = { depth: 4, maxArrayLength: 100, maxStringLength: 1e4 };
const render = (args) => args.map((a) => (typeof a === 'string' ? a : inspect(a, INSPECT_OPTIONS))).join(' ');
const consoleShim = Object.create(null);
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  consoleShim[level] = (...args) => send({ type: 'log', text: render(args) });
}
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, ...rest) => {
    send({ type: 'log', text: typeof chunk === 'string' ? chunk : String(chunk) });
    const callback = rest.find((a) => typeof a === 'function');
    if (callback) queueMicrotask(() => callback(null));
    return true;
  };
}

const pending = new Map();
let nextId = 1;

function makeErrorClass(descriptor) {
  return class extends Error {
    constructor(member, message) {
      super(message);
      Object.defineProperty(this, 'name', { value: descriptor.name, writable: true, configurable: true });
      Object.defineProperty(this, descriptor.memberNameProperty, { value: member, writable: true, enumerable: true, configurable: true });
    }
  };
}

function makeNamespace(ns, ErrorClass) {
  const target = Object.create(null);
  for (const name of ns.names) {
    Object.defineProperty(target, name, {
      enumerable: true,
      value: (args) => new Promise((resolve, reject) => {
        const fail = (message) => reject(ErrorClass ? new ErrorClass(name, message) : new Error(message));
        // As dsh's worker does: arguments that are not lossless JSON never leave the program.
        if (!isLossless(args)) return fail('binding arguments must be lossless JSON');
        const id = nextId++;
        pending.set(id, { resolve, fail });
        send({ type: 'call', id, global: ns.global, name, args });
      }),
    });
  }
  return Object.freeze(target);
}

function describe(error) {
  try {
    const detail = error instanceof Error ? error.stack ?? error.message : error;
    return typeof detail === 'string' ? detail : String(detail);
  } catch {
    return 'program threw an unrenderable value';
  }
}

async function run(start) {
  let code;
  try {
    const prefix = 'async function __retrace_program__() {\n';
    const stripped = stripTypeScriptTypes(`${prefix}${start.code}\n}`);
    code = stripped.slice(prefix.length, stripped.length - 2);
  } catch (error) {
    return { type: 'done', error: { kind: 'exception', message: error instanceof Error ? error.message : String(error) } };
  }
  const globals = [];
  const values = [];
  for (const ns of start.namespaces) {
    const ErrorClass = ns.errorClass ? makeErrorClass(ns.errorClass) : undefined;
    globals.push(ns.global);
    values.push(makeNamespace(ns, ErrorClass));
    if (ErrorClass) {
      globals.push(ns.errorClass.name);
      values.push(ErrorClass);
    }
  }
  try {
    const AsyncFunction = (async () => {}).constructor;
    const value = await new AsyncFunction(...globals, 'console', `'use strict';\n${code}`)(...values, consoleShim);
    if (value === undefined) return { type: 'done' };
    if (!isLossless(value)) return { type: 'done', error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' } };
    return { type: 'done', value };
  } catch (error) {
    return { type: 'done', error: { kind: 'exception', message: describe(error) } };
  }
}

// Loaded now, while the child waits for its program (it may be started ahead
// of time): the type stripper's first use costs tens of milliseconds.
stripTypeScriptTypes('');

function onMessage(message) {
  if (!started && message.type === 'start') {
    started = true;
    run(message).then(send);
  } else if (message.type === 'reply' && pending.has(message.id)) {
    const entry = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) entry.resolve(message.value);
    else entry.fail(message.message);
  }
}

// A large reply arrives in many chunks: they are kept apart until its line
// ends (joining as they come would copy the whole line at every chunk).
let parts = [];
let started = false;
channel.setEncoding('utf8');
channel.on('data', (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
    parts.push(chunk.slice(start, nl));
    const line = parts.join('');
    parts = [];
    start = nl + 1;
    onMessage(JSON.parse(line));
  }
  if (start < chunk.length) parts.push(chunk.slice(start));
});
