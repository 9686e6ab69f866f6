/**
 * The npm package as a user gets it: `npm pack` of the server workspace, installed from the
 * tarball into an empty folder, then the `mcp-tasks-server` bin through npx (stdio and HTTP, with
 * the SDK's client; also as the `mcp-tasks` alias), a plain-JavaScript embedder, and every JavaScript
 * sample of docs/LIBRARY.md. One pack and one install serve every case. The TypeScript checks and the
 * Node 20 run are packedServer.test.ts's.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { secret, textOf } from '../support/helpers.js';
import { libraryGuideSamples } from '../support/librarySamples.js';
import { cleanEnv, packAndInstall, serverPackage } from '../support/packedPackage.js';

const pkg = serverPackage;

/** A client on `transport`; returns what the checks below need. */
async function connectClient(transport: Transport): Promise<Client> {
    const client = new Client({ name: 'package-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: 'delete' } }));
    await client.connect(transport);
    return client;
}

/** The demo tools answer like the repo's build: a plain call and one task run to its result. */
async function exerciseDemo(client: Client): Promise<void> {
    assert.deepEqual(client.getServerVersion(), { name: 'mcp-tasks', title: 'MCP Tasks', version: pkg.version });
    assert.match(client.getInstructions() ?? '', /^MCP Tasks server\./);
    const names = (await client.listTools()).tools.map(tool => tool.name);
    for (const name of ['greet', 'slow_compute', 'deploy']) {
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    assert.equal(textOf(await client.callTool({ name: 'greet', arguments: { name: 'npx' } })), 'Hello, npx!');
    const { task } = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: 'packed' }, task: {} } }, CreateTaskResultSchema);
    assert.equal(task.status, 'working');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.match(textOf(result), /Computation "packed" completed after 1 seconds\. Result: 42\./);
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'completed');
    // Elicitation checks the client's answer in the server, which must not need the SDK (an optional peer) for it.
    const asked = await client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'packed.txt' }, task: {} } }, CreateTaskResultSchema);
    const answered = await client.experimental.tasks.getTaskResult(asked.task.taskId, CallToolResultSchema);
    assert.equal(answered.isError, undefined, textOf(answered));
    assert.equal(textOf(answered), "Confirmed: would delete 'packed.txt' (demo: nothing deleted)");
}

/** Ends a process this test started (npx and the server it runs, as one process group). */
async function stopGroup(proc: ChildProcess): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) {
        return;
    }
    const exited = once(proc, 'exit');
    process.kill(-proc.pid!, 'SIGTERM');
    await exited;
}

const PLAIN_JS = `// A plain-JavaScript embedder: its own name, instructions and one tool, over stdio.
import { connectStdio, createTasksServer, defineTool, textResult } from '@mcp-tasks/server';
import { z } from 'zod';

const shout = defineTool({
    name: 'shout',
    title: 'Shout',
    description: 'Upper-cases the text, as a task when the client asks for one.',
    inputSchema: z.object({ text: z.string() }),
    taskSupport: 'optional',
    async run({ text }, ctx) {
        ctx.progress(1, 1, 'shouting');
        return textResult(text.toUpperCase());
    },
});
const core = createTasksServer({ serverInfo: { name: 'shouter', version: '2.3.4' }, instructions: 'Call shout to shout.', tools: [shout] });
const { closed } = connectStdio(core);
await closed;
await core.close();
`;

describe('npm package', { timeout: 600_000 }, () => {
    let work: string;
    let app: string;

    before(() => {
        let files: string[];
        ({ work, app, files } = packAndInstall());
        for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'package.json', 'README.md', 'LICENSE']) {
            assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
        }
        assert.ok(!files.some(file => file.startsWith('src/') || file.endsWith('.map')), `only built files ship: ${files.join(', ')}`);
        // The runtime needs neither optional peer: the cases below run without them.
        for (const peer of Object.keys(pkg.peerDependencies)) {
            assert.ok(!existsSync(join(app, 'node_modules', peer)), `${peer} was not installed`);
        }
    });

    after(() => {
        rmSync(work, { recursive: true, force: true });
    });

    it('npx mcp-tasks-server --stdio serves the demo tools to a real client', async () => {
        const transport = new StdioClientTransport({ command: 'npx', args: ['mcp-tasks-server', '--stdio'], cwd: app, env: cleanEnv() as Record<string, string>, stderr: 'pipe' });
        const client = await connectClient(transport);
        try {
            await exerciseDemo(client);
        } finally {
            await client.close();
        }
    });

    it('npx mcp-tasks-server --http prints its URL and serves the demo tools behind the token', async () => {
        const token = secret();
        const proc = spawn('npx', ['mcp-tasks-server', '--http', '--port', '0', '--exit-with-stdin'], {
            cwd: app,
            env: { ...cleanEnv(), MCP_TASKS_TOKEN: token },
            stdio: ['pipe', 'pipe', 'pipe'],
            detached: true,
        });
        const stderr: string[] = [];
        proc.stderr!.on('data', chunk => stderr.push(String(chunk)));
        try {
            const [line] = (await Promise.race([
                once(createInterface({ input: proc.stdout! }), 'line'),
                once(proc, 'exit').then(([code]) => assert.fail(`npx exited with ${code}: ${stderr.join('')}`)),
            ])) as [string];
            const url = new URL((JSON.parse(line) as { url: string }).url);
            assert.equal(url.hostname, '127.0.0.1');
            const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
            assert.equal(refused.status, 401, 'no token, no entry');
            const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
            const client = await connectClient(transport);
            try {
                await exerciseDemo(client);
            } finally {
                await transport.terminateSession();
                await client.close();
            }
            // --exit-with-stdin: closing its stdin stops the server, and npx with it.
            const exited = once(proc, 'exit');
            proc.stdin!.end();
            assert.deepEqual(await exited, [0, null]);
        } finally {
            await stopGroup(proc);
        }
    });

    it('installs the command as mcp-tasks too, the name its messages give', () => {
        for (const bin of ['mcp-tasks', 'mcp-tasks-server']) {
            const version = spawnSync('npx', [bin, '--version'], { cwd: app, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
            assert.equal(version.status, 0, version.stderr);
            assert.equal(version.stdout, `${pkg.version}\n`);
        }
        // The bins start through launch.js, which turns on Node's compile cache in the user's data folder.
        assert.deepEqual(pkg.bin, { 'mcp-tasks': 'dist/launch.js', 'mcp-tasks-server': 'dist/launch.js' });
        const state = mkdtempSync(join(tmpdir(), 'mcp-tasks-bin-state-'));
        try {
            const env = cleanEnv();
            delete env.NODE_COMPILE_CACHE;
            const cached = spawnSync('npx', ['mcp-tasks', '--version'], { cwd: app, env: { ...env, XDG_STATE_HOME: state }, encoding: 'utf8', timeout: 60_000 });
            assert.equal(cached.status, 0, cached.stderr);
            const supported = Number(process.versions.node.split('.')[0]) >= 22;
            assert.equal(existsSync(join(state, 'mcp-tasks', 'compile-cache')), supported, 'the compile cache folder (Node 22.1 and later)');
        } finally {
            rmSync(state, { recursive: true, force: true });
        }
        const usage = spawnSync('npx', ['mcp-tasks', '--bogus'], { cwd: app, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
        assert.equal(usage.status, 2);
        assert.match(usage.stderr, /^mcp-tasks: unknown flag --bogus\nRun with --help for usage\.\n$/);
    });

    it('--store redis without the optional redis package says how to add it (npx by package name, as hosts write it)', () => {
        const result = spawnSync('npx', ['-y', '@mcp-tasks/server', '--stdio', '--store', 'redis://127.0.0.1:1'], { cwd: app, env: cleanEnv(), encoding: 'utf8', input: '', timeout: 60_000 });
        assert.equal(result.status, 1, result.stderr);
        assert.match(result.stderr, /--store redis needs the optional "redis" package .*npm install redis/);
    });

    it('a plain node script imports the package and serves its own tool under its own name', async () => {
        writeFileSync(join(app, 'serve.mjs'), PLAIN_JS);
        const transport = new StdioClientTransport({ command: process.execPath, args: ['serve.mjs'], cwd: app, stderr: 'pipe' });
        const client = await connectClient(transport);
        try {
            assert.deepEqual(client.getServerVersion(), { name: 'shouter', version: '2.3.4' });
            assert.equal(client.getInstructions(), 'Call shout to shout.');
            assert.deepEqual(
                (await client.listTools()).tools.map(tool => tool.name),
                ['shout'],
            );
            const { task } = await client.request({ method: 'tools/call', params: { name: 'shout', arguments: { text: 'quiet' }, task: {} } }, CreateTaskResultSchema);
            assert.equal(textOf(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)), 'QUIET');
        } finally {
            await client.close();
        }
    });

    // docs/LIBRARY.md: every sample runs here, in the same installed app.
    libraryGuideSamples(() => app);
});
