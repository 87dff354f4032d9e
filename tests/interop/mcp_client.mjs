// Drives `retrace mcp` with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk 1.x: Client + StdioClientTransport), as an agent
// would, and asserts what the client sees. One scenario per run:
//   tour      listTools (the SDK's own schema checks), callTool on every built-in tool,
//             an argument-validation failure (isError), an unknown tool (-32602), ping
//   cancel    a long bash call aborted through its AbortSignal; the server keeps serving
//   progress  a call passed onprogress gets notifications/progress while it runs
//   overlap   8 concurrency-safe calls in flight at once
//   roots     no --workspace; the client's two roots (<workspace>/a, <workspace>/b) are the
//             workspace: tools work inside each, are refused outside, and follow a roots change
//   noroots   no --workspace, no roots, started in /: every file tool and bash is refused with
//             a message that says how to pass --workspace
//   unavailable  the database cannot be opened: the client still connects, and tools/list
//             fails with the reason
// usage: node mcp_client.mjs <upstream dir> <scenario> <retrace binary> <db> <workspace> <session id>
// Prints {"ok":true,...} and exits 0, or prints the failure and exits 1.
import assert from 'node:assert/strict';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [upstream, scenario, retrace, db, workspace, session] = process.argv.slice(2);
const sdk = (sub) => import(pathToFileURL(resolve(upstream, 'node_modules/@modelcontextprotocol/sdk/dist/esm', sub)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { McpError, ListRootsRequestSchema } = await sdk('types.js');

// A local page for web_fetch; /slow answers after 300 ms.
const server = http.createServer((req, res) => {
  const send = () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(`page ${req.url}\n`); };
  if (req.url.startsWith('/slow')) setTimeout(send, 300); else send();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

// The roots scenarios start retrace without --workspace, as a client's config without it would.
const chosen = !['roots', 'noroots'].includes(scenario);
const transport = new StdioClientTransport({
  command: retrace,
  args: ['--db', db, 'mcp', ...(chosen ? ['--workspace', workspace] : []), '--session', session],
  cwd: scenario === 'noroots' ? '/' : workspace,
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (d) => { stderr += d; });
const fileUri = (p) => pathToFileURL(p).href;
let roots = [{ uri: fileUri(`${workspace}/a`), name: 'a' }, { uri: fileUri(`${workspace}/b`), name: 'b' }];
const client = new Client({ name: 'retrace-sdk-test', version: '1.0.0' },
  scenario === 'roots' ? { capabilities: { roots: { listChanged: true } } } : {});
if (scenario === 'roots') client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
const text = (r) => r.content.map((b) => b.text).join('');

const scenarios = {
  async tour() {
    assert.equal(client.getServerVersion().name, 'retrace');
    assert.equal(client.getServerCapabilities().tools.listChanged, true);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const names = ['read', 'write', 'edit', 'glob', 'grep', 'bash', 'web_fetch', 'job_output', 'job_list', 'job_kill'];
    assert.deepEqual(tools.map((t) => t.name).sort(), [...names].sort());
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema.type, 'object', t.name);
      assert.equal(typeof t.title, 'string', t.name);
      assert.equal(typeof t.annotations.readOnlyHint, 'boolean', t.name);
    }
    assert.equal(byName.read.annotations.readOnlyHint, true);
    assert.equal(byName.read.annotations.openWorldHint, false);
    assert.equal(byName.bash.annotations.destructiveHint, true);
    assert.equal(byName.web_fetch.annotations.openWorldHint, true);
    assert.deepEqual(byName.job_list.outputSchema.required, ['result']);  // an array value, wrapped

    // Every built-in tool; the SDK checks each structuredContent against its outputSchema.
    const ok = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, false, `${name}: ${text(r)}`);
      assert.ok(r.structuredContent, name);
      return r;
    };
    await ok('write', { file_path: 'notes.txt', content: 'alpha\nbeta\n' });
    assert.match(text(await ok('read', { file_path: 'notes.txt' })), /1: alpha/);
    await ok('edit', { file_path: 'notes.txt', old_string: 'beta', new_string: 'gamma' });
    assert.deepEqual((await ok('glob', { pattern: '*.txt' })).structuredContent.paths, ['notes.txt']);
    assert.equal((await ok('grep', { pattern: 'gamma' })).structuredContent.matches.length, 1);
    const bash = await ok('bash', { command: 'echo from-bash; exit 3', description: 'exit code' });
    assert.match(text(bash), /from-bash[\s\S]*exit code: 3/);
    assert.ok('result' in bash.structuredContent);  // a oneOf value, wrapped
    assert.match(text(await ok('web_fetch', { url: `${base}/page` })), /page \/page/);
    const job = await ok('bash', { command: 'sleep 30', description: 'a job', run_in_background: true });
    const jobId = job.structuredContent.result.jobId ?? text(job).match(/bash-\d+/)[0];
    assert.equal((await ok('job_list', {})).structuredContent.result.length, 1);
    await ok('job_output', { job_id: jobId });
    await ok('job_kill', { job_id: jobId });

    const invalid = await client.callTool({ name: 'read', arguments: { file_path: 7 } });
    assert.equal(invalid.isError, true);
    assert.match(text(invalid), /invalid arguments/);
    const outside = await client.callTool({ name: 'read', arguments: { file_path: '/etc/passwd' } });
    assert.equal(outside.isError, true);

    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }),
      (e) => e instanceof McpError && e.code === -32602 && /Unknown tool: nope/.test(e.message));
    await client.ping();
    return { tools: tools.length };
  },

  async cancel() {
    const controller = new AbortController();
    const started = Date.now();
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 30', description: 'long' } },
      undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('user stop'), 400);
    await assert.rejects(call);
    assert.ok(Date.now() - started < 10000);
    // The server goes on serving after the cancellation.
    const r = await client.callTool({ name: 'glob', arguments: { pattern: '*' } });
    assert.equal(r.isError, false);
    return {};
  },

  async progress() {
    const reports = [];
    const r = await client.callTool({ name: 'bash', arguments: { command: 'sleep 1.8', description: 'slow' } },
      undefined, { onprogress: (p) => reports.push(p) });
    assert.equal(r.isError, false);
    assert.ok(reports.length >= 1, 'no progress notification');
    for (let i = 1; i < reports.length; i++) assert.ok(reports[i].progress > reports[i - 1].progress);
    return { reports: reports.length };
  },

  async overlap() {
    await client.listTools();
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      client.callTool({ name: 'web_fetch', arguments: { url: `${base}/slow/${i}` } })));
    for (const [i, r] of results.entries()) {
      assert.equal(r.isError, false);
      assert.match(text(r), new RegExp(`page /slow/${i}`));
    }
    // One after another they would take 8 × 300 ms.
    return { ms: Date.now() - started };
  },

  async roots() {
    const refused = (r, what) => {
      assert.equal(r.isError, true, `${what} was not refused: ${text(r)}`);
      assert.match(text(r), /outside the workspace roots/, what);
    };
    const read = (path) => client.callTool({ name: 'read', arguments: { file_path: path } });
    assert.match(text(await read(`${workspace}/a/in.txt`)), /in a/);
    assert.match(text(await read('in.txt')), /in a/);  // relative: against the first root
    assert.match(text(await read(`${workspace}/b/in.txt`)), /in b/);
    const wrote = await client.callTool({ name: 'write', arguments: { file_path: `${workspace}/b/new.txt`, content: 'new' } });
    assert.equal(wrote.isError, false, text(wrote));
    refused(await read(`${workspace}/outside.txt`), 'a read outside both roots');
    refused(await client.callTool({ name: 'write', arguments: { file_path: `${workspace}/written.txt`, content: 'x' } }),
      'a write outside both roots');
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'pwd', description: 'where' } });
    assert.match(text(bash), new RegExp(`${workspace}/a`));  // bash runs in the first root
    // The client drops root a: the server asks again, and a's files are outside from the next call on.
    roots = [{ uri: fileUri(`${workspace}/b`), name: 'b' }];
    await client.sendRootsListChanged();
    const gone = await read(`${workspace}/a/in.txt`);
    assert.equal(gone.isError, true, `root a was still served: ${text(gone)}`);
    assert.match(text(gone), /outside the workspace/);
    assert.match(text(await read('in.txt')), /in b/);
    return {};
  },

  async noroots() {
    const refusedHow = (r, what) => {
      assert.equal(r.isError, true, `${what} was not refused: ${text(r)}`);
      assert.match(text(r), /--workspace/, `${what}: the refusal does not say how to pass --workspace`);
      assert.match(text(r), /started in \//, what);
    };
    refusedHow(await client.callTool({ name: 'read', arguments: { file_path: '/etc/hostname' } }), 'read');
    refusedHow(await client.callTool({ name: 'write', arguments: { file_path: `${workspace}/x.txt`, content: 'x' } }),
      'write');
    refusedHow(await client.callTool({ name: 'bash',
      arguments: { command: `echo y > ${workspace}/y.txt`, description: 'write a file' } }), 'bash');
    refusedHow(await client.callTool({ name: 'glob', arguments: { pattern: '*' } }), 'glob');
    return {};
  },

  async unavailable() {
    assert.equal(client.getServerVersion().name, 'retrace');
    await assert.rejects(client.listTools(), (e) => {
      assert.match(e.message, /cannot serve its tools/);
      assert.match(e.message, /cannot create the directory/);
      return true;
    });
    return {};
  },
};

process.exitCode = 1;
try {
  await client.connect(transport);
  const report = await scenarios[scenario]();
  await client.close();
  console.log(JSON.stringify({ ok: true, ...report }));
  process.exitCode = 0;
} catch (error) {
  console.log(`scenario ${scenario} failed: ${error?.stack ?? error}\nserver stderr:\n${stderr}`);
  await client.close().catch(() => {});
} finally {
  server.close();
}
