// The upstream side of tool cards, shared by the golden generator and the replay benchmark:
// the dsh reference tools registered as a default deployment registers them, and the card
// document of ARCHITECTURE.md ("--format cards") computed with their own presenters and the
// adapter fallback of dsh-tool-contract §6.3.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

// Loads the dsh tool packages from `upstream` and returns the ToolRuntime with them registered.
export async function upstreamTools(upstream) {
  const load = (pkg) => import(pathToFileURL(resolve(upstream, 'node_modules/@deepseek-ai', pkg, 'lib/index.js')).href);
  const { Context } = await load('cordis');
  const { ToolRuntime } = await load('dsh-tools');
  const ctx = new Context();
  // Services the tool plugins inject. Presenters never touch them; registration only needs them present.
  // (An unconfined filesystem and shell: no sandbox fields are advertised, as in a default deployment.)
  const services = {
    systemPrompt: { tools() { return () => {}; }, section() { return () => {}; } },
    fs: {}, shell: {}, shellEnv: {}, subprocess: {}, web: {},
    jobs: { attachController() { return () => {}; }, onJobDone() { return () => {}; }, list() { return []; } },
  };
  for (const [name, service] of Object.entries(services)) {
    ctx.provide(name);
    ctx.set(name, service);
  }
  ctx.plugin(ToolRuntime);
  for (const [pkg, config] of [['dsh-tool-fs', {}], ['dsh-tool-fs-search', { sampleOverCapGlobResults: true }],
                               ['dsh-tool-bash', {}], ['dsh-tool-web', {}], ['dsh-tool-jobs', {}]]) {
    ctx.plugin(await load(pkg), config);
  }
  await new Promise((r) => setTimeout(r, 100));
  return ctx.get('tools');
}

// The tool-card document of ARCHITECTURE.md ("--format cards"), with the views computed by
// the upstream presenters and the adapter fallback of dsh-tool-contract §6.3.
export function parseArgs(text) {
  if (text === '') return {};
  try { return JSON.parse(text); } catch { return text; }
}
const orNull = (v) => (v === undefined ? null : v);
// The header's session id and the plain events of JSONL lines (packed chunk rows carry no
// tool data; a torn last line is dropped, as dsh's reader does).
export function eventsOfLines(lines) {
  let sessionId = '';
  const events = [];
  for (const [i, line] of lines.entries()) {
    let row;
    try { row = JSON.parse(line); } catch (e) {
      if (i === lines.length - 1) break;
      throw e;
    }
    if (row.type === 'session') sessionId = row.id;
    else if (typeof row.seq === 'number') events.push(row);
  }
  return { sessionId, events };
}

export function cardsOf(sessionId, events, tools) {
  const requested = new Map();  // callId -> {name, arguments} from assistant tool-call blocks
  const calls = [];
  const byId = new Map();
  for (const e of events) {
    if (e.type === 'assistant/message') {
      for (const b of e.data.message.content) if (b.type === 'tool-call') requested.set(b.id, { name: b.name, arguments: b.arguments });
    } else if (e.type === 'tool/call') {
      const call = { callId: e.data.callId, name: e.data.name, args: parseArgs(e.data.arguments) };
      calls.push(call);
      byId.set(call.callId, call);
    } else if (e.type === 'tool/result' && e.surfaceOp === 'append') {
      const block = e.data.message.content[0];
      let call = byId.get(block.toolCallId);
      if (call === undefined || call.done) {  // a result without a call (TOOL_NOT_STARTED)
        const r = requested.get(block.toolCallId) ?? { name: '', arguments: '' };
        call = { callId: block.toolCallId, name: r.name, args: parseArgs(r.arguments) };
        calls.push(call);
      }
      call.done = true;
      call.result = { content: block.content, isError: block.isError ?? false, ...(e.data.meta !== undefined ? { meta: e.data.meta } : {}) };
    }
  }
  return {
    sessionId,
    calls: calls.map((c) => {
      const def = tools.get(c.name);
      const pending = orNull(def?.presentCall?.(c.args));
      const result = c.result === undefined ? null : orNull(def?.presentResult?.(c.args, c.result));
      const shownPending = pending ?? { card: 'generic', title: c.name, rawInput: c.args };
      const shownResult = c.result === undefined ? null : (result ?? { card: 'generic', title: shownPending.title, content: c.result.content });
      return {
        callId: c.callId, name: c.name, args: c.args, pending, result,
        isError: c.result === undefined ? null : c.result.isError,
        display: { pending: shownPending, result: shownResult },
      };
    }),
  };
}

