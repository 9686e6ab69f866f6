/**
 * The local install path before release, as a user takes it: `npm run pack:server` packs the server
 * and prints the npx line to paste into a host; that exact line then serves a real MCP client (the
 * SDK's, over stdio) on the machine's own Node 20, which hosts spawn when it is first on PATH, and on
 * Node 22, and the same line with `--wrap` serves a wrapped server's tools (the package carries
 * the SDK client the gateway needs); the documented Redis line installs it beside the current
 * redis. The same tarball, installed into a fresh folder without the MCP SDK, type-checks the docs' TypeScript samples with
 * TypeScript 7 and the tsconfig docs/LIBRARY.md shows (no skipLibCheck).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { satisfies } from '../../scripts/nodeRange.mjs';
import { textOf } from '../support/helpers.js';
import { docSamples, GUIDE } from '../support/librarySamples.js';
import { cleanEnv, repoVersionOf, ROOT, serverPackage } from '../support/packedPackage.js';

const TSC7 = join(ROOT, 'node_modules/typescript7/bin/tsc');
/** A wrapped server for the gateway case (it takes its own SDK from the repository). */
const WRAPPED_SERVER = join(ROOT, 'test/server/fixtures/gateway/misbehaving.mjs');
const range = (JSON.parse(readFileSync(join(ROOT, 'server/package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

/** Every `node` on PATH with its version, this process's own included. */
function nodesOnPath(): { bin: string; version: string }[] {
    const dirs = [dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)];
    const seen = new Map<string, string>();
    for (const dir of dirs) {
        const bin = join(dir, 'node');
        if (dir && existsSync(bin) && ![...seen.keys()].some(known => known === bin)) {
            const version = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
            if (version) {
                seen.set(bin, version);
            }
        }
    }
    return [...seen].map(([bin, version]) => ({ bin, version }));
}

const nodes = nodesOnPath();
const RUNTIMES = [20, 22].map(major => ({ major, node: nodes.find(n => n.version.startsWith(`${major}.`)) }));

/** The environment a host gives npx when `node` (and its npx) comes first on PATH. */
function hostEnv(node: string): Record<string, string> {
    return { ...(cleanEnv() as Record<string, string>), PATH: [dirname(node), process.env.PATH].join(delimiter) };
}

/** Runs a program without blocking the event loop (the cases below run side by side); its exit status and output. */
async function exec(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', chunk => (stdout += String(chunk)));
    child.stderr.on('data', chunk => (stderr += String(chunk)));
    const [status] = (await once(child, 'close')) as [number | null];
    return { status, stdout, stderr };
}

/** npx's install folders (~/.npm/_npx/<hash>) holding `tarball`: made by these runs, removed after them. */
function npxInstallsOf(tarball: string): string[] {
    const root = join(process.env.npm_config_cache ?? join(homedir(), '.npm'), '_npx');
    return existsSync(root)
        ? readdirSync(root)
              .map(name => join(root, name))
              // npx writes the spec as a path relative to that folder: match its temp folder and file name.
              .filter(dir => existsSync(join(dir, 'package.json')) && readFileSync(join(dir, 'package.json'), 'utf8').includes(`${basename(dirname(tarball))}/${basename(tarball)}`))
        : [];
}

const TYPED_TS = `// A TypeScript embedder, checked against the published declarations.
import { createTasksServer, defineTool, textResult, type ServerInfo, type TasksServer, type ToolContext } from '@mcp-tasks/server';
import { z } from 'zod';

const info: ServerInfo = { name: 'typed', title: 'Typed', version: '1.0.0' };
const count = defineTool({
    name: 'count',
    title: 'Count',
    description: 'Counts characters.',
    inputSchema: z.object({ text: z.string() }),
    taskSupport: 'required',
    async run({ text }, ctx: ToolContext) {
        const answer = await ctx.elicit({ mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });
        const length: number = text.length;
        return textResult(answer.action === 'accept' ? String(length) : 'declined');
    },
});
export const server: TasksServer = createTasksServer({ serverInfo: info, instructions: 'Count things.', tools: [count] });

// skipLibCheck hides an unresolved import in a declaration file, which then reads as any; MCP's
// types must arrive, so each line below is an error (were they any, the directive would be unused).
// @ts-expect-error an ElicitResult is not a number
export const elicitResult: number = null as unknown as Awaited<ReturnType<ToolContext['elicit']>>;
// @ts-expect-error a CallToolResult is not a number
export const toolResult: number = textResult('');

// @ts-expect-error serverInfo needs a version
createTasksServer({ serverInfo: { name: 'no-version' } });
defineTool({
    name: 'wrong',
    title: 'Wrong',
    description: 'Its run reads the arguments with the schema types.',
    inputSchema: z.object({ n: z.number() }),
    taskSupport: 'forbidden',
    async run({ n }) {
        // @ts-expect-error n is a number
        const s: string = n;
        return textResult(s);
    },
});
`;

// The cases run side by side, but the two npx runs one after the other: npx installs one spec into one folder.
describe('npm run pack:server', { timeout: 300_000, concurrency: true }, () => {
    let work: string;
    let tarball: string;
    let npxArgs: string[];
    let previousRun: Promise<unknown> = Promise.resolve();

    before(() => {
        work = mkdtempSync(join(tmpdir(), 'mcp-tasks-packed-'));
        const printed = execFileSync(process.execPath, [join(ROOT, 'scripts/packServer.mjs'), '--out', work], { cwd: ROOT, env: cleanEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        const line = /^npx (-y -p \S+\.tgz mcp-tasks --stdio)$/m.exec(printed);
        assert.ok(line, printed);
        npxArgs = line[1]!.split(' ');
        tarball = npxArgs[2]!;
        assert.ok(isAbsolute(tarball) && existsSync(tarball), tarball);
        assert.match(tarball, new RegExp(`mcp-tasks-server-${serverPackage.version.replace(/\./g, '\\.')}-[0-9a-f]{8}\\.tgz$`));
        const config = JSON.parse(printed.trim().split('\n').at(-1)!) as { command: string; args: string[] };
        assert.deepEqual(config, { command: 'npx', args: npxArgs });
    });

    after(() => {
        for (const dir of tarball ? npxInstallsOf(tarball) : []) {
            rmSync(dir, { recursive: true, force: true });
        }
        rmSync(work, { recursive: true, force: true });
    });

    for (const { major, node } of RUNTIMES) {
        it(`the printed npx line serves a real MCP client on Node ${major}, in the package's engines range`, { skip: node ? false : `no Node ${major} on PATH` }, async () => {
            const turn = previousRun.catch(() => undefined);
            let done!: () => void;
            previousRun = new Promise<void>(resolve => (done = resolve));
            await turn;
            try {
                await serveOn(major, node!);
            } finally {
                done();
            }
        });
    }

    async function serveOn(major: number, node: { bin: string; version: string }): Promise<void> {
        assert.ok(satisfies(node.version, range), `Node ${node.version} is outside engines.node ${range}`);
        const env = hostEnv(node.bin);
        assert.equal(spawnSync('node', ['-p', 'process.versions.node'], { env, encoding: 'utf8' }).stdout.trim(), node.version, "the host's PATH picks this Node");
        const transport = new StdioClientTransport({ command: 'npx', args: npxArgs, env, stderr: 'pipe' });
        let stderr = '';
        transport.stderr!.on('data', chunk => (stderr += String(chunk)));
        const client = new Client({ name: `node-${major}`, version: '1.0.0' }, { capabilities: {} });
        await client.connect(transport);
        try {
            assert.deepEqual(client.getServerVersion(), { name: 'mcp-tasks', title: 'MCP Tasks', version: serverPackage.version });
            const names = (await client.listTools()).tools.map(tool => tool.name);
            assert.ok(names.includes('slow_compute') && names.includes('get_task'), names.join(', '));
            const { task } = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0.2, label: `node${major}` }, task: {} } }, CreateTaskResultSchema);
            const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
            assert.match(textOf(result), new RegExp(`Computation "node${major}" completed`));
            assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'completed');
        } finally {
            await client.close();
        }
        assert.doesNotMatch(stderr, /EBADENGINE|npm (warn|error)/i, 'npx installs it without complaint');

        // The same line as a gateway: the package carries the SDK client --wrap needs (no second package named).
        const wrapped = new StdioClientTransport({ command: 'npx', args: [...npxArgs, '--wrap', '--', node.bin, WRAPPED_SERVER], env, stderr: 'pipe' });
        let wrapLog = '';
        wrapped.stderr!.on('data', chunk => (wrapLog += String(chunk)));
        const gatewayClient = new Client({ name: `gateway-node-${major}`, version: '1.0.0' }, { capabilities: {} });
        await gatewayClient.connect(wrapped);
        try {
            // tools/list waits a while for the wrapped server's first start.
            const names = (await gatewayClient.listTools()).tools.map(tool => tool.name);
            assert.ok(names.includes('echo'), `${names.join(', ')}\n${wrapLog}`);
            assert.equal(textOf(await gatewayClient.callTool({ name: 'echo', arguments: { message: `node ${major}` } })), `Echo: node ${major}`);
        } finally {
            await gatewayClient.close();
        }
        assert.doesNotMatch(wrapLog, /needs the MCP SDK/);
    }

    it('the documented Redis line installs beside the current redis (no ERESOLVE) and loads it', async () => {
        const args = ['-y', '-p', tarball, '-p', `redis@${repoVersionOf('redis')}`, 'mcp-tasks', '--stdio', '--store', 'redis://127.0.0.1:1'];
        const result = await exec('npx', args, { cwd: work, env: cleanEnv() });
        assert.equal(result.status, 1, result.stderr);
        assert.match(result.stderr, /Task store unavailable: cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
        assert.doesNotMatch(result.stderr, /ERESOLVE|needs the optional "redis" package/);
    });

    it("the docs' TypeScript samples type-check with TypeScript 7 and the guide's tsconfig, no skipLibCheck, no MCP SDK", async () => {
        const app = join(work, 'ts-app');
        mkdirSync(app);
        // The guide's steps: npm install @mcp-tasks/server zod; npm install -D typescript @types/node; npm pkg set type=module.
        writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'ts-app', version: '1.0.0', private: true, type: 'module' }));
        const installed = await exec('npm', ['install', '--prefer-offline', tarball, `zod@${repoVersionOf('zod')}`, `@types/node@${repoVersionOf('@types/node')}`], { cwd: app, env: cleanEnv() });
        assert.equal(installed.status, 0, installed.stderr);
        assert.ok(!existsSync(join(app, 'node_modules/@modelcontextprotocol')), 'the MCP SDK is not installed');
        const tsconfig = /```json title="tsconfig.json"\n([\s\S]*?)^```$/m.exec(readFileSync(GUIDE, 'utf8'));
        assert.ok(tsconfig, 'docs/LIBRARY.md shows a tsconfig.json');
        const options = (JSON.parse(tsconfig[1]!) as { compilerOptions: Record<string, unknown> }).compilerOptions;
        assert.equal(options.skipLibCheck, undefined);
        writeFileSync(join(app, 'tsconfig.json'), tsconfig[1]!);
        const samples = docSamples().filter(sample => sample.lang === 'ts');
        assert.ok(samples.length >= 2, `${samples.length} TypeScript samples`);
        for (const sample of [...samples, { title: 'typed.ts', code: TYPED_TS }]) {
            writeFileSync(join(app, sample.title), sample.code);
        }
        // One deliberate error beside them: tsc read every file (the only error is this one), and a pass would mean something.
        writeFileSync(join(app, 'control.ts'), `export const broken: number = String('not a number');\n`);
        const tsc = (args: string[] = []) => exec(process.execPath, [TSC7, '-p', '.', ...args], { cwd: app });
        assert.match((await tsc(['--version'])).stdout, /^Version 7\./);
        const checked = await tsc();
        assert.equal(checked.stderr, '');
        assert.deepEqual(checked.stdout.trim().split('\n'), [`control.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.`]);
        assert.notEqual(checked.status, 0);
    });
});
