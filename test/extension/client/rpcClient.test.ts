// The owner connection's own JSON-RPC client (extension/client/rpcClient.ts) against the real built
// server (dist/server.js --http: run `npm run build` first): connect, tools, a server→client
// elicitation, the GET stream reopening after a drop, a server restart, and a wrong token.
import '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Methods, RELATED_TASK_META_KEY } from '@mcp-tasks/server/contract';
import type { ScopedLogger } from '../../../extension/logger';
import { OwnerConnection, type InputHandlers } from '../../../extension/owner/ownerConnection';
import { RpcClient, type RpcClientOptions } from '../../../extension/client/rpcClient';
import { RpcError } from '../../../extension/client/rpcError';
import { httpArgs, serverEnv } from '../../../extension/launcher/serverArgs';
import { ServerProcess } from '../../../extension/launcher/serverProcess';
import { reopenDelay, DEFAULT_STREAM_OPTIONS } from '../../../extension/client/streamableHttp';
import { readSse } from '../../../extension/client/sseReader';
import { TaskModel } from '../../../extension/tasks/taskModel';

const SERVER_JS = resolve('dist/server.js');
const OWNER_TOKEN = 'owner-secret';
const CLIENT_TOKEN = 'client-secret';
const SECRETS = { clientToken: CLIENT_TOKEN, ownerToken: OWNER_TOKEN };
const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const limits = { defaultTtl: '1h', maxTtl: '2h', maxTasksPerClient: 20, logLevel: 'warn', taskTools: true, demoTools: true, abandonAfter: 'off', stoppedWaiting: 'keep' as const };
/** Reopen the GET stream at once: the test drives the drop, not the backoff (tested apart below). */
const IMMEDIATE = { initialMs: 0, growFactor: 1.5, maxMs: 0, maxRetries: 2 };
/** A broken reconnect fails the test instead of hanging the run. */
const LIMIT = { timeout: 30_000 };

function startServer(port = 0): Promise<ServerProcess> {
    return ServerProcess.start({ command: process.execPath, args: httpArgs(SERVER_JS, limits, port), env: serverEnv(SECRETS), secrets: SECRETS }, quiet);
}

function client(url: string, extra: Partial<RpcClientOptions> = {}): RpcClient {
    return new RpcClient({ url, token: OWNER_TOKEN, clientInfo: { name: 'rpcClient test', version: '1' }, capabilities: {}, stream: IMMEDIATE, ...extra });
}

/** Runs `use` with a client connected to `url`, closing it afterwards whatever happens. */
async function withConnected(url: string, use: (rpc: RpcClient) => Promise<void>): Promise<void> {
    const rpc = client(url);
    await rpc.connect();
    try {
        await use(rpc);
    } finally {
        rpc.close();
    }
}

/**
 * A loopback TCP proxy that can cut every connection, and tells when an SSE GET stream is open. It
 * rewrites the Host header to the server's port, which the server checks (DNS rebinding).
 */
class CuttableProxy {
    private readonly server: Server;
    private readonly sockets = new Set<Socket>();
    private streamWaiters: (() => void)[] = [];
    getStreams = 0;
    private port = 0;

    constructor(private readonly targetPort: number) {
        this.server = createServer(inbound => {
            const outbound = connect(this.targetPort, '127.0.0.1');
            let isGet = false;
            outbound.on('data', chunk => {
                if (isGet && chunk.toString('latin1').includes('text/event-stream')) {
                    isGet = false;
                    this.getStreams++;
                    for (const waiter of this.streamWaiters.splice(0)) {
                        waiter();
                    }
                }
            });
            const ourHost = new RegExp(`^host: 127\\.0\\.0\\.1:${this.port}\r$`, 'im');
            inbound.on('data', chunk => {
                // A kept-alive connection carries one request after another: note which kind this is.
                const text = chunk.toString('latin1');
                if (/^[A-Z]+ \//.test(text)) {
                    isGet = text.startsWith('GET ');
                }
                outbound.write(Buffer.from(text.replace(ourHost, `host: 127.0.0.1:${this.targetPort}\r`), 'latin1'));
            });
            outbound.pipe(inbound);
            for (const socket of [inbound, outbound]) {
                this.sockets.add(socket);
                socket.on('error', () => undefined);
                socket.on('close', () => {
                    this.sockets.delete(socket);
                    inbound.destroy();
                    outbound.destroy();
                });
            }
        });
    }

    async listen(): Promise<string> {
        await new Promise<void>(done => this.server.listen(0, '127.0.0.1', done));
        this.port = (this.server.address() as { port: number }).port;
        return `http://127.0.0.1:${this.port}/mcp`;
    }

    nextStream(): Promise<void> {
        return new Promise(done => this.streamWaiters.push(done));
    }

    cutAll(): void {
        for (const socket of this.sockets) {
            socket.destroy();
        }
    }

    close(): Promise<void> {
        this.cutAll();
        return new Promise(done => this.server.close(() => done()));
    }
}

function nextEvent<T>(event: (listener: (value: T) => void) => { dispose(): void }, accept: (value: T) => boolean = () => true): Promise<T> {
    return new Promise(done => {
        const subscription = event(value => {
            if (accept(value)) {
                subscription.dispose();
                done(value);
            }
        });
    });
}

describe('RpcClient against dist/server.js --http', () => {
    let server: ServerProcess;
    before(async () => {
        assert.ok(existsSync(SERVER_JS), `${SERVER_JS} is missing: run npm run build first`);
        server = await startServer();
    });
    after(() => server.stop());

    it('connects as the owner, lists the tools and calls one', LIMIT, async () => {
        await withConnected(server.url, async rpc => {
            assert.ok(rpc.sessionId, 'the server gave a session id');
            const { tools } = (await rpc.request(Methods.toolsList)) as { tools: { name: string }[] };
            assert.ok(tools.some(tool => tool.name === 'greet'));
            const result = (await rpc.request(Methods.toolsCall, { name: 'greet', arguments: { name: 'Ada' } })) as { content: { text: string }[] };
            assert.equal(result.content[0]!.text, 'Hello, Ada!');
        });
    });

    it('takes the priming event that starts each stream as no message, and reports nothing', LIMIT, async () => {
        const errors: string[] = [];
        let statuses = 0;
        const rpc = client(server.url, {
            onError: message => errors.push(message),
            onNotification: method => {
                if (method === Methods.taskStatus) {
                    statuses++;
                }
            },
        });
        await rpc.connect();
        try {
            // A status on the GET stream comes after that stream's priming event; tasks are made until
            // one comes (the stream opens while the first ones may already be done).
            for (let i = 0; i < 500 && statuses === 0; i++) {
                await rpc.request(Methods.toolsCall, { name: 'slow_compute', arguments: { seconds: 0, label: 'primed' }, task: {} });
            }
            assert.ok(statuses > 0, 'a status came on the GET stream');
            assert.deepEqual(errors, []);
        } finally {
            rpc.close();
        }
    });

    it('turns an error answer into an RpcError with the code and the server text', LIMIT, async () => {
        await withConnected(server.url, async rpc => {
            await assert.rejects(rpc.request('no/such/method'), (err: unknown) => {
                assert.ok(err instanceof RpcError);
                assert.equal(err.code, -32601);
                return true;
            });
        });
    });

    it('stops waiting for a call when its signal aborts, with the abort reason, and the connection keeps serving', LIMIT, async () => {
        await withConnected(server.url, async rpc => {
            const stop = new AbortController();
            // A direct call that would run for a minute: only the abort can end it within the test's limit.
            const call = rpc.request(Methods.toolsCall, { name: 'slow_compute', arguments: { seconds: 60, label: 'rpc-abort' } }, 120_000, stop.signal);
            const reason = new Error('stopped by the user');
            stop.abort(reason);
            await assert.rejects(call, err => err === reason);
            await assert.rejects(rpc.request(Methods.toolsList, {}, 10_000, stop.signal), err => err === reason, 'an aborted signal refuses at once');
            const result = (await rpc.request(Methods.toolsCall, { name: 'greet', arguments: { name: 'Ada' } })) as { content: { text: string }[] };
            assert.equal(result.content[0]!.text, 'Hello, Ada!');
        });
    });

    it("sends nothing, token or not, once the server's process is gone: the connection is lost instead", LIMIT, async () => {
        // Whoever holds the port now (another local user after the server died) must not see the token.
        const seen: (string | undefined)[] = [];
        const squatter = createHttpServer((req, res) => {
            seen.push(req.headers.authorization);
            res.writeHead(500).end();
        });
        await new Promise<void>(done => squatter.listen(0, '127.0.0.1', done));
        const { port } = squatter.address() as { port: number };
        try {
            let alive = false;
            const rpc = client(`http://127.0.0.1:${port}/mcp`, { peerAlive: () => alive });
            await assert.rejects(rpc.connect(), /the MCP Tasks server process has exited; nothing more is sent to its port/);
            assert.deepEqual(seen, [], 'no request reached the port');
            // The same client with a live peer does reach it: the check is what kept it away.
            alive = true;
            await assert.rejects(client(`http://127.0.0.1:${port}/mcp`, { peerAlive: () => alive }).connect(), /HTTP 500/);
            assert.deepEqual(seen, [`Bearer ${OWNER_TOKEN}`]);
        } finally {
            squatter.close();
        }
    });

    it('refuses a wrong token with a clear error and stays closed', LIMIT, async () => {
        const rpc = client(server.url, { token: 'not-the-token' });
        await assert.rejects(rpc.connect(), /HTTP 401 from the MCP Tasks server: Unauthorized: a valid Authorization: Bearer token is required/);
        assert.equal(rpc.closed, true);
        await assert.rejects(rpc.request(Methods.toolsList), /Connection closed/);
    });

    it("answers the server's elicitation for a task and gets the task's result", LIMIT, async () => {
        const asked: Record<string, unknown>[] = [];
        const rpc = client(server.url, {
            capabilities: { elicitation: { form: {} } },
            handlers: {
                [Methods.elicitationCreate]: async params => {
                    asked.push(params);
                    return { action: 'accept', content: { confirm: 'delete' } };
                },
            },
        });
        await rpc.connect();
        try {
            const created = (await rpc.request(Methods.toolsCall, { name: 'confirm_delete', arguments: { filename: 'a.txt' }, task: {} })) as { task: { taskId: string } };
            const result = (await rpc.request(Methods.tasksResult, { taskId: created.task.taskId })) as { content: { text: string }[] };
            assert.equal(result.content[0]!.text, "Confirmed: would delete 'a.txt' (demo: nothing deleted)");
            assert.equal(asked.length, 1);
            assert.match(String(asked[0]!.message), /Delete 'a.txt'\?/);
            assert.deepEqual(asked[0]!._meta && (asked[0]!._meta as Record<string, unknown>)[RELATED_TASK_META_KEY], { taskId: created.task.taskId });
        } finally {
            rpc.close();
        }
    });

    it('reopens the GET stream on the same session after it drops, and hears the server on it again', LIMIT, async () => {
        const proxy = new CuttableProxy(Number(new URL(server.url).port));
        const url = await proxy.listen();
        const lost: string[] = [];
        let completed: (taskId: unknown) => void = () => undefined;
        const completions: unknown[] = [];
        const onNotification = (method: string, params: Record<string, unknown>) => {
            if (method === Methods.taskStatus && params.status === 'completed') {
                completions.push(params.taskId);
                completed(params.taskId);
            }
        };
        const rpc = client(url, { onLost: reason => lost.push(reason), onNotification });
        try {
            const opened = proxy.nextStream();
            await rpc.connect();
            await opened;
            const session = rpc.sessionId;
            const reopened = proxy.nextStream();
            proxy.cutAll();
            await reopened;
            assert.equal(proxy.getStreams, 2);
            assert.equal(rpc.sessionId, session, 'the same session goes on');
            assert.deepEqual(lost, []);
            const heard = new Promise(done => (completed = done));
            const created = (await rpc.request(Methods.toolsCall, { name: 'slow_compute', arguments: { seconds: 0, label: 'after the drop' }, task: {} })) as { task: { taskId: string } };
            await rpc.request(Methods.tasksResult, { taskId: created.task.taskId });
            // The status notification comes on the reopened GET stream (tasks/result's reply carries only the result).
            assert.equal(completions.includes(created.task.taskId) ? created.task.taskId : await heard, created.task.taskId);
        } finally {
            rpc.close();
            await proxy.close();
        }
    });
});

describe('OwnerConnection over the RpcClient', () => {
    it('reconnects with a new session after the server restarts on the same URL, and answers elicitations', LIMIT, async () => {
        let server = await startServer();
        const port = Number(new URL(server.url).port);
        const model = new TaskModel();
        const input: InputHandlers = {
            elicit: async () => ({ action: 'accept', content: { confirm: 'keep' } }),
            createMessage: () => Promise.reject(new Error('no sampling here')),
        };
        const owner = new OwnerConnection(model, quiet, input, IMMEDIATE);
        try {
            const up = nextEvent(owner.onDidChangeState, Boolean);
            // No pid: the endpoint of a server whose process the extension cannot watch. With a pid, the
            // connection sends nothing once that process is gone (the test above), and the launcher sets
            // the restarted server's endpoint anew.
            owner.setEndpoint({ url: server.url, token: OWNER_TOKEN });
            await up;
            const taskId = await owner.startTask('confirm_delete', { filename: 'b.txt' });
            const before = await owner.result(taskId);
            assert.equal((before.content[0] as { text: string }).text, 'Deletion cancelled', 'our elicit handler answered');

            const down = nextEvent(owner.onDidChangeState, value => !value);
            await server.stop();
            await down;
            assert.equal(owner.connected, false);
            const again = nextEvent(owner.onDidChangeState, Boolean);
            server = await startServer(port);
            await again;
            assert.equal(owner.connected, true);
            assert.equal((await owner.callTool('greet', { name: 'again' })).content.length, 1);
        } finally {
            owner.dispose();
            await server.stop();
        }
    });
});

describe('the GET stream backoff and the SSE reader', () => {
    it("waits as the SDK's client did: 1 s growing by 1.5, at most 30 s, or what the server asked", () => {
        assert.deepEqual([0, 1, 2, 20].map(attempt => reopenDelay(attempt, DEFAULT_STREAM_OPTIONS)), [1000, 1500, 2250, 30_000]);
        assert.equal(reopenDelay(3, DEFAULT_STREAM_OPTIONS, 200), 200);
    });

    it('reads events split anywhere, with CRLF, comments, multi-line data and retry', async () => {
        const text = ': keep-alive\r\n\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\nid: 7\r\n\r\nretry: 250\n\ndata: é\n\n';
        const bytes = new TextEncoder().encode(text);
        const body = new ReadableStream<Uint8Array>({
            start(controller) {
                for (let i = 0; i < bytes.length; i += 3) {
                    controller.enqueue(bytes.slice(i, i + 3));
                }
                controller.close();
            },
        });
        const retries: number[] = [];
        const events = [];
        for await (const event of readSse(body, ms => retries.push(ms))) {
            events.push(event);
        }
        assert.deepEqual(events, [
            { event: 'message', data: '{"a":\n1}', id: '7' },
            { event: 'message', data: 'é', id: '7' },
        ]);
        assert.deepEqual(retries, [250]);
    });
});
