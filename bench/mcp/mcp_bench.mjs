// MCP round trips, side by side in one run, through one client: the official MCP
// TypeScript SDK Client over stdio against
//   retrace-normal  `retrace mcp` recording every call durably at --durability normal
//   retrace-full    the same at --durability full (an fsync per commit)
//   ts-sdk          the SDK's own McpServer with the same trivial tool, recording nothing
// Two trivial tools: `read` of a one-line file (read-only and concurrency-safe: retrace
// records its call with its result in one commit, and calls in flight share group
// commits) and `write` of a one-line file (a side effect: retrace makes the tool/call
// durable before the body, so two commits one at a time; an exclusive call, so 8 in
// flight queue, and each one's tool/call rides with the commit of the result before it).
// What is measured is the protocol, the pipeline and the recording. Sequential calls,
// then 8 in flight; servers alternate round by round so drift on a noisy machine hits
// them alike, each run after a `sync`. Each run warms up first (2,000 calls: the TS
// server's JIT takes about that many to reach its speed) and then makes 10,000 calls,
// which span more than the journal's 1 s fold lag, so retrace's folding is inside the
// measured window (but for the last second's calls, folded after it). `--before
// BINARY` adds `before-normal`, another build of retrace at `normal` (to compare two
// builds in one run); `--no-full` leaves out retrace-full; `--tools read,write`
// chooses the tools. The last column but one is the median over the rounds of each
// round's calls/s over the TS server's; the last lists each round's. A second table
// gives p50 and p99 the same way (each round's over the TS server's).
// usage: node mcp_bench.mjs <upstream dir> <retrace binary> [--calls N] [--warmup N] [--rounds R]
//          [--before BINARY] [--no-full] [--tools LIST]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOLS, loadClientSdk } from './common.mjs';

const [upstream, retrace, ...rest] = process.argv.slice(2);
const option = (name) => { const i = rest.indexOf(name); return i >= 0 ? rest[i + 1] : undefined; };
const calls = Number(option('--calls') ?? 10000);
const warmup = Number(option('--warmup') ?? 2000);
const rounds = Number(option('--rounds') ?? 3);
const before = option('--before');
const chosen = (option('--tools') ?? 'read,write').split(',');
const { Client, StdioClientTransport } = await loadClientSdk(upstream);
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'retrace-mcp-bench-'));
writeFileSync(join(dir, 'a.txt'), 'hello\n');
const tools = Object.fromEntries(chosen.map((t) => {
  if (!TOOLS[t]) throw new Error(`unknown tool ${t} (read, write)`);
  return [t, TOOLS[t]];
}));

// `retrace mcp` of `binary`, recording into a fresh database per run.
const recording = (binary, durability, db) => (i) =>
  ({ command: binary, args: ['--db', join(dir, `${db}${i}.db`), '--durability', durability, 'mcp', '--workspace', dir] });
const servers = {
  'retrace-normal': recording(retrace, 'normal', 'n'),
  'retrace-full': recording(retrace, 'full', 'f'),
  'ts-sdk': () => ({ command: process.execPath, args: [join(here, 'ts_server.mjs'), upstream, dir] }),
};
if (before) servers['before-normal'] = recording(before, 'normal', 'b');
if (rest.includes('--no-full')) delete servers['retrace-full'];

async function connect(params) {
  const client = new Client({ name: 'retrace-mcp-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...params, stderr: 'ignore' }));
  await client.listTools();  // the client validates structuredContent from here on, for every server
  return client;
}

async function call(client, tool) {
  const t = process.hrtime.bigint();
  const r = await client.callTool(tool);
  if (r.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(r.content)}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function measure(client, tool, inFlight) {
  for (let i = 0; i < warmup; i++) await call(client, tool);  // warm-up: the TS server's JIT
  const lat = [];
  const start = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < calls) { next++; lat.push(await call(client, tool)); }
  }));
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { p50: q(0.5), p99: q(0.99), perSec: calls / secs };
}

const results = {};
for (let round = 0; round < rounds; round++) {
  for (const tool of Object.values(tools)) {
    for (const [name, params] of Object.entries(servers)) {
      for (const inFlight of [1, 8]) {
        // Each run starts with nothing dirty in the page cache: a recording's
        // database pages reach the disk after its run, by the kernel's writeback,
        // where they can slow the fsyncs of the server that runs next.
        execFileSync('sync');
        const client = await connect(params(`${round}-${tool.name}-${inFlight}`));
        const m = await measure(client, tool, inFlight);
        await client.close();
        (results[`${tool.name} ${name} x${inFlight}`] ??= []).push(m);
      }
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Each round's figure (calls/s, or what `of` picks) over the TS server's in the
// same round: the machine's speed drifts from minute to minute, the ratio
// within a round much less.
const ratios = (key, of = (m) => m.perSec) => {
  const [tool, , x] = key.split(' ');
  const ts = results[`${tool} ts-sdk ${x}`];
  return ts ? results[key].map((m, r) => of(m) / of(ts[r])) : [];
};
console.log(`${calls} calls per run after ${warmup} to warm up, ${rounds} rounds, median of rounds`);
console.log('tool   server              in flight   p50 ms   p99 ms    calls/s   ratio to ts-sdk   each round');
for (const [key, ms] of Object.entries(results)) {
  const [tool, name, x] = key.split(' ');
  const r = ratios(key);
  console.log(`${tool.padEnd(7)}${name.padEnd(20)}${x.slice(1).padStart(9)}${median(ms.map((m) => m.p50)).toFixed(3).padStart(9)}` +
    `${median(ms.map((m) => m.p99)).toFixed(3).padStart(9)}${median(ms.map((m) => m.perSec)).toFixed(0).padStart(11)}` +
    `${(r.length ? median(r) : NaN).toFixed(2).padStart(18)}   ${r.map((v) => v.toFixed(2)).join(' ')}`);
}
// The latencies the same way: below 1 is faster than the TS server.
console.log('\nlatency over the TS server\'s in the same round (below 1: faster), median and each round');
console.log('tool   server              in flight   p50 ratio   each round                    p99 ratio   each round');
for (const key of Object.keys(results).filter((k) => !k.includes(' ts-sdk '))) {
  const [tool, name, x] = key.split(' ');
  const cells = ['p50', 'p99'].map((q) => {
    const r = ratios(key, (m) => m[q]);
    return `${(r.length ? median(r) : NaN).toFixed(2).padStart(12)}   ${r.map((v) => v.toFixed(2)).join(' ').padEnd(28)}`;
  });
  console.log(`${tool.padEnd(7)}${name.padEnd(20)}${x.slice(1).padStart(9)}${cells.join('')}`.trimEnd());
}
rmSync(dir, { recursive: true, force: true });
