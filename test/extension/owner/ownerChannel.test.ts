// Which owner endpoint and token the extension hands its owner connection, against another local
// user: real server processes (dist/server.js: run `npm run build` first), real sockets, a fake
// `vscode`. A listener that grabs a freed port must never see an owner token.
import { fake } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Env } from '@mcp-tasks/server/contract';
import type { ExtensionConfig } from '../../../extension/config';
import type { ScopedLogger } from '../../../extension/logger';
import { OwnerConnection } from '../../../extension/owner/ownerConnection';
import { StdioMode } from '../../../extension/launcher/stdioMode';
import { TaskModel } from '../../../extension/tasks/taskModel';
import { promisesDrained, waitUntil } from '../../support/wait.js';

const SERVER_JS = resolve('dist/server.js');
const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const config = (): ExtensionConfig => ({ transport: 'stdio', defaultTtl: '2h', maxTtl: '24h', maxTasksPerClient: 7, logLevel: 'warn', taskTools: true, demoTools: true, abandonAfter: 'off', stoppedWaiting: 'keep' });


type Resolved = { command: string; args: string[]; env: Record<string, string> };

/** What VS Code would launch: the definition the mode resolved, with this launch's token and announce file. */
async function resolved(mode: StdioMode): Promise<Resolved> {
    return (await mode.resolve(mode.provide('1'))) as unknown as Resolved;
}

/** Launches the server the way VS Code does: from the definition the mode resolved. */
async function launch(mode: StdioMode): Promise<ChildProcess> {
    const definition = await resolved(mode);
    return spawn(definition.command, definition.args, { env: { ...process.env, ...definition.env }, stdio: ['pipe', 'ignore', 'ignore'] });
}

/** A logger that keeps what it is told, to wait for a decision. */
function recordingLog(): ScopedLogger & { lines: string[] } {
    const lines: string[] = [];
    const keep = (message: string) => void lines.push(message);
    return { lines, trace: keep, debug: keep, info: keep, warn: keep, error: keep };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    return child.pid!;
}

function initialize(url: string, token: string): Promise<number> {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'unit', version: '1' } } };
    return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) }).then(async res => {
        await res.arrayBuffer();
        return res.status;
    });
}

/** Another user's listener on a port: records every Authorization header it is sent. */
class Squatter {
    readonly seen: (string | undefined)[] = [];
    readonly requests: IncomingMessage[] = [];
    private readonly server: Server = createServer((req, res) => {
        this.seen.push(req.headers.authorization);
        this.requests.push(req);
        req.resume();
        res.writeHead(204).end();
    });

    /** Binds `port` as soon as it is free. */
    async grab(port: number, timeoutMs = 10_000): Promise<void> {
        await waitUntil(
            async () => {
                try {
                    this.server.listen(port, '127.0.0.1');
                    await once(this.server, 'listening');
                    return true;
                } catch (err) {
                    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
                        throw err;
                    }
                    return undefined;
                }
            },
            `port ${port} to be free`,
            { everyMs: 5, timeoutMs },
        );
    }

    async listenAnywhere(): Promise<number> {
        this.server.listen(0, '127.0.0.1');
        await once(this.server, 'listening');
        return (this.server.address() as { port: number }).port;
    }

    close(): void {
        this.server.closeAllConnections();
        this.server.close();
    }
}

describe('the stdio owner endpoint against another local user', () => {
    assert.ok(existsSync(SERVER_JS), `${SERVER_JS} is missing: run npm run build first`);
    const cleanup: (() => void)[] = [];
    beforeEach(() => fake.reset());
    afterEach(() => {
        for (const fn of cleanup.splice(0).reverse()) {
            fn();
        }
    });

    /** A stdio mode whose launch is resolved, and another user's listener on a port of its own; both go after the test. */
    async function squatted() {
        const log = recordingLog();
        const mode = new StdioMode(SERVER_JS, config, log);
        cleanup.push(() => mode.dispose());
        const squatter = new Squatter();
        cleanup.push(() => squatter.close());
        const port = await squatter.listenAnywhere();
        const { env } = await resolved(mode);
        return { log, mode, squatter, port, env };
    }

    it('sends no owner token to a listener that grabs the port of a SIGKILLed server', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        const owner = new OwnerConnection(new TaskModel(), quiet);
        mode.onDidChangeServer(() => owner.setEndpoint(mode.ownerEndpoint));
        cleanup.push(() => owner.dispose(), () => mode.dispose());
        const child = await launch(mode);
        cleanup.push(() => child.kill('SIGKILL'));
        await waitUntil(() => owner.connected, 'the owner connection');
        const { url, token } = mode.ownerEndpoint!;
        child.kill('SIGKILL');
        await once(child, 'exit');
        const squatter = new Squatter();
        cleanup.push(() => squatter.close());
        await squatter.grab(Number(new URL(url).port));
        const tokenSent = () => squatter.seen.some(header => header?.includes(token));
        await waitUntil(() => tokenSent() || (mode.ownerEndpoint === undefined && !owner.connected), 'the endpoint to be withdrawn (or the token to leak)');
        assert.equal(tokenSent(), false, 'the owner token reached the listener on the freed port');
        assert.equal(mode.ownerEndpoint, undefined);
    });

    it('ignores (and removes) a stale announcement of a dead process: nothing is sent to its URL', async () => {
        const { log, mode, squatter, port, env } = await squatted();
        const pid = await deadPid();
        writeFileSync(env[Env.ownerAnnounce]!, JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, pid }), { mode: 0o600 });
        await waitUntil(() => !existsSync(env[Env.ownerAnnounce]!), 'the stale file to be removed');
        assert.ok(log.lines.includes(`ignoring the stale owner announcement of process ${pid}`));
        assert.equal(mode.ownerEndpoint, undefined);
        assert.equal(squatter.requests.length, 0, 'a dead process gets not even a challenge');
    });

    it('sends no token to a live process whose announced port does not prove it holds the launch token', async () => {
        const { log, mode, squatter, port, env } = await squatted();
        // A pid that lives (ours), announcing a port another user holds.
        writeFileSync(env[Env.ownerAnnounce]!, JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, pid: process.pid }), { mode: 0o600 });
        await waitUntil(() => log.lines.some(line => line.includes('did not prove it is our server')), 'the endpoint to be refused');
        assert.equal(mode.ownerEndpoint, undefined);
        // A write can reach the watcher as more than one event, each checked afresh: what matters is that
        // the port was only ever challenged, never handed a credential.
        assert.ok(squatter.requests.length >= 1, 'it was challenged');
        assert.deepEqual(squatter.seen, squatter.seen.map(() => undefined), 'and sent no credential');
    });

    it('follows no symlink planted at the announce path', async () => {
        const log = recordingLog();
        const mode = new StdioMode(SERVER_JS, config, log);
        cleanup.push(() => mode.dispose());
        const elsewhere = mkdtempSync(join(tmpdir(), 'mcp-tasks-planted-'));
        cleanup.push(() => rmSync(elsewhere, { recursive: true, force: true }));
        const squatter = new Squatter();
        cleanup.push(() => squatter.close());
        const port = await squatter.listenAnywhere();
        const planted = join(elsewhere, 'owner.json');
        writeFileSync(planted, JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, pid: process.pid }));
        const { env } = await resolved(mode);
        symlinkSync(planted, env[Env.ownerAnnounce]!);
        // A second, real launch after the planted one: its announcement is read, the link never.
        const child = await launch(mode);
        cleanup.push(() => child.kill('SIGKILL'));
        await waitUntil(() => mode.ownerEndpoint?.pid === child.pid, 'the real server');
        assert.equal(squatter.requests.length, 0, 'the linked announcement was never read');
    });

    it('names the tasks a crash of the stdio server lost, offers Run Again and Restart Server; a server that stops cleanly is no crash', async () => {
        const model = new TaskModel();
        const owner = new OwnerConnection(model, quiet);
        const mode = new StdioMode(SERVER_JS, config, quiet, () => owner.lostTasks);
        mode.onDidChangeServer(() => owner.setEndpoint(mode.ownerEndpoint));
        cleanup.push(() => owner.dispose(), () => mode.dispose());
        const first = await launch(mode);
        cleanup.push(() => first.kill('SIGKILL'));
        await waitUntil(() => owner.connected, 'the owner connection');
        const doomed = await owner.startTask('slow_compute', { seconds: 300, label: 'doomed' });

        first.kill('SIGKILL');
        const notice = await waitUntil(() => fake.messages.find(shown => shown.level === 'warning'), 'the crash notice');
        assert.equal(notice.message, 'MCP Tasks server stopped unexpectedly. 1 task was lost: slow_compute: doomed.');
        assert.deepEqual(notice.args, ['Run Again', 'Restart Server', 'Show Log']);
        assert.equal(model.get(doomed)?.lost, true, 'its row is marked lost (and so offers Run Again)');
        assert.equal(mode.problem, 'MCP Tasks server stopped unexpectedly');

        // VS Code starts it again: the problem clears. Then VS Code stops it (end of input): no notice.
        const second = await launch(mode);
        cleanup.push(() => second.kill('SIGKILL'));
        await waitUntil(() => (mode.ownerEndpoint?.pid === second.pid && owner.connected) || undefined, 'the second server');
        assert.equal(mode.problem, undefined);
        second.stdin!.end();
        await once(second, 'exit');
        await waitUntil(() => mode.ownerEndpoint === undefined || undefined, 'the second endpoint to go');
        await promisesDrained();
        assert.equal(fake.messages.filter(shown => shown.level === 'warning').length, 1, 'a clean stop is not told as a crash');
        assert.equal(mode.problem, undefined);
    });

    it('gives a restarted server a new owner token, which the old one does not open', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        cleanup.push(() => mode.dispose());
        const first = await launch(mode);
        cleanup.push(() => first.kill('SIGKILL'));
        const old = await waitUntil(() => (mode.ownerEndpoint?.pid === first.pid ? mode.ownerEndpoint : undefined), 'the first server');
        first.stdin!.end();
        await once(first, 'exit');
        await waitUntil(() => mode.ownerEndpoint === undefined, 'the first endpoint to go');
        const second = await launch(mode);
        cleanup.push(() => second.kill('SIGKILL'));
        const next = await waitUntil(() => (mode.ownerEndpoint?.pid === second.pid ? mode.ownerEndpoint : undefined), 'the second server');
        assert.notEqual(next.token, old.token);
        assert.equal(await initialize(next.url, old.token), 401, "the previous launch's token is refused");
        assert.equal(await initialize(next.url, next.token), 200);
    });
});
