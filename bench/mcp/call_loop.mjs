// N sequential calls of one trivial tool through the official MCP TypeScript SDK
// client against one stdio server, after a warm-up; prints the mean µs per call and
// the server's CPU per call, in all and by thread (from /proc/<pid>/task/*/stat,
// whose clock ticks 100 times a second: run enough calls for a few seconds). For
// comparing two builds or two servers (run them alternately, several times), or
// profiling one (give `perf record … -- server …` as the command: the CPU figures are
// then perf's own). `@DIR` in the arguments stands for the fresh workspace holding a.txt.
// `--in-flight N` keeps N calls in flight (each of N loops awaits its own calls).
// usage: node call_loop.mjs <upstream dir> [--tool read|write] [--warmup N] [--in-flight N] <server command> <calls> [server args…]
//   e.g. node call_loop.mjs "$UPSTREAM" build/cli/retrace 10000 --db @DIR/n.db --durability normal mcp --workspace @DIR
//        node call_loop.mjs "$UPSTREAM" --tool write "$NODE" 10000 bench/mcp/ts_server.mjs "$UPSTREAM" @DIR
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOLS, loadClientSdk } from './common.mjs';

const argv = process.argv.slice(2);
const upstream = argv.shift();
const options = { '--tool': 'read', '--warmup': '2000', '--in-flight': '1' };
while (argv[0] in options) options[argv.shift()] = argv.shift();
const [command, calls, ...args] = argv;
const tool = TOOLS[options['--tool']];
const inFlight = Number(options['--in-flight']);
if (!tool || !command || !(Number(calls) > 0) || !(inFlight >= 1)) {
  console.error('usage: node call_loop.mjs <upstream dir> [--tool read|write] [--warmup N] [--in-flight N] <server command> <calls> [server args…]');
  process.exit(2);
}
const { Client, StdioClientTransport } = await loadClientSdk(upstream);
const dir = mkdtempSync(join(tmpdir(), 'retrace-call-loop-'));
writeFileSync(join(dir, 'a.txt'), 'hello\n');
const client = new Client({ name: 'retrace-call-loop', version: '1.0.0' });
const transport = new StdioClientTransport({ command, args: args.map((a) => a.replaceAll('@DIR', dir)), stderr: 'ignore' });
await client.connect(transport);
await client.listTools();

// CPU µs of each thread of the server, by "name:tid".
function threadCpu() {
  const cpu = {};
  for (const tid of readdirSync(`/proc/${transport.pid}/task`)) {
    const stat = readFileSync(`/proc/${transport.pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // from field 3, state
    cpu[`${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}:${tid}`] = (Number(fields[11]) + Number(fields[12])) * 1e4;
  }
  return cpu;
}

// `n` calls, `inFlight` at a time.
async function run(n) {
  let left = n;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) await client.callTool(tool);
  }));
}
await run(Number(options['--warmup']));
const before = threadCpu();
const clientBefore = process.cpuUsage();
const start = process.hrtime.bigint();
await run(Number(calls));
const wall = Number(process.hrtime.bigint() - start) / 1e3 / Number(calls);
const clientUsage = process.cpuUsage(clientBefore);
const clientCpu = (clientUsage.user + clientUsage.system) / Number(calls);
const after = threadCpu();
let total = 0;
const byName = new Map();  // thread name → [µs per call, threads]
for (const [key, us] of Object.entries(after)) {
  const perCall = (us - (before[key] ?? 0)) / Number(calls);
  total += perCall;
  const name = key.slice(0, key.lastIndexOf(':'));
  const [sum, n] = byName.get(name) ?? [0, 0];
  byName.set(name, [sum + perCall, n + 1]);
}
const threads = [...byName].filter(([, [us]]) => us >= 1).sort((a, b) => b[1][0] - a[1][0])
  .map(([name, [us, n]]) => `${name}${n > 1 ? ` ×${n}` : ''} ${us.toFixed(0)}`);
console.log(`${options['--tool']}${inFlight > 1 ? ` ×${inFlight} in flight` : ''}: ${wall.toFixed(1)} us/call; server CPU ${total.toFixed(0)} us/call (by thread: ${threads.join(', ')}); client CPU ${clientCpu.toFixed(0)} us/call`);
await client.close();
rmSync(dir, { recursive: true, force: true });
