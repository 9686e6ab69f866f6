import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SERVER_JS, startHttpServer, type HttpServer } from '../support/helpers.js';
import { parseSse } from '../support/sse.js';
import { inMemory } from '../support/serverState.js';

// The official Tasks client, @modelcontextprotocol/ext-tasks with @modelcontextprotocol/client 2.x
// (pinned devDependencies), drives the real server in both task generations, over HTTP and stdio:
// 2025-11-25 (initialize, task-augmented calls) and 2026-07-28 (the Tasks extension; the SDK client
// does not speak its task wire shapes, so ext-tasks sends those through `rawDispatch`, here a POST
// with the revision's headers, or a frame on the same stdio pipe).

type Json = Record<string, unknown>;
type ClientModule = typeof import('@modelcontextprotocol/client');
type ExtTasksModule = typeof import('@modelcontextprotocol/ext-tasks/client');
type Transport = InstanceType<ClientModule['StreamableHTTPClientTransport']>;
type RawResponse = { kind: 'result'; result: never } | { kind: 'error'; error: never };

const TOKEN = 'ext-tasks-token';
const V2 = '2026-07-28';
const CLIENT_INFO = { name: 'ext-tasks-test', version: '1' };

let sdk: ClientModule;
let ext: ExtTasksModule;
let server: HttpServer;

/** Both packages are ESM only; the suites compile to CommonJS, so they are imported dynamically. */
async function load(): Promise<void> {
    sdk = await import('@modelcontextprotocol/client');
    ext = await import('@modelcontextprotocol/ext-tasks/client');
}

function capabilities(v2: boolean): Json {
    return { elicitation: { form: {} }, sampling: {}, ...(v2 ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {}) };
}

/** A JSON-RPC answer as ext-tasks wants it back from a raw dispatch. */
function rawResponse(message: Json): RawResponse {
    return (message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result }) as RawResponse;
}

let rawIds = 0;

/** rawDispatch over HTTP: one 2026-07-28 POST, with the headers the revision requires. */
function httpDispatch(url: string) {
    return async (request: unknown): Promise<RawResponse> => {
        const { method, params } = request as { method: string; params?: Json };
        const name = method === 'tools/call' ? params?.name : params?.taskId;
        const response = await fetch(url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                authorization: `Bearer ${TOKEN}`,
                'mcp-protocol-version': V2,
                'mcp-method': method,
                ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${++rawIds}`, ...(request as Json) }),
        });
        const text = await response.text();
        const messages = response.headers.get('content-type')?.includes('text/event-stream') ? parseSse<Json>(text) : [JSON.parse(text) as Json];
        return rawResponse(messages.at(-1)!);
    };
}

/**
 * The SDK's stdio transport with a side door: frames sent through `dispatch` go down the same pipe
 * (tasks are bound to it) and their answers come back here instead of to the Client.
 */
function tappedStdio(inner: Transport) {
    const waiting = new Map<string, (message: Json) => void>();
    const tapped = {
        onmessage: undefined as ((message: never, extra?: never) => void) | undefined,
        onclose: undefined as (() => void) | undefined,
        onerror: undefined as ((error: Error) => void) | undefined,
        get sessionId() {
            return inner.sessionId;
        },
        setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
        start() {
            inner.onmessage = ((message: Json, extra: never) => {
                const settle = typeof message.id === 'string' ? waiting.get(message.id) : undefined;
                if (settle && !('method' in message)) {
                    waiting.delete(message.id as string);
                    settle(message);
                } else {
                    tapped.onmessage?.(message as never, extra);
                }
            }) as never;
            inner.onclose = () => tapped.onclose?.();
            inner.onerror = error => tapped.onerror?.(error);
            return inner.start();
        },
        send: (message: never, options?: never) => inner.send(message, options),
        close: () => inner.close(),
        dispatch(request: unknown): Promise<RawResponse> {
            const id = `raw-${++rawIds}`;
            return new Promise(resolve => {
                waiting.set(id, message => resolve(rawResponse(message)));
                void inner.send({ jsonrpc: '2.0', id, ...(request as Json) } as never);
            });
        },
    };
    return tapped;
}

interface Connected {
    session: import('@modelcontextprotocol/ext-tasks/client').TaskEnabledSession;
    close(): Promise<void>;
}

interface ConnectOptions {
    /** More arguments for the stdio server process. */
    args?: string[];
    /** Another HTTP server than the suite's. */
    url?: string;
    /** Each input request as ext-tasks routed it, and the client's answer. */
    onInputRequest?: (request: { kind: string }) => unknown;
    onError?: (error: Error) => void;
}

function defaultAnswer(request: { kind: string }): unknown {
    return request.kind === 'elicitation' ? { action: 'accept', content: { confirm: 'delete' } } : { role: 'assistant', model: 'test', content: { type: 'text', text: 'a test haiku' } };
}

async function connect(kind: 'http' | 'stdio', v2: boolean, options: ConnectOptions = {}): Promise<Connected> {
    const client = new sdk.Client(CLIENT_INFO, { capabilities: capabilities(v2) as never, ...(v2 ? { versionNegotiation: { mode: { pin: V2 } } } : {}) });
    let dispatch: (request: unknown) => Promise<RawResponse>;
    if (kind === 'http') {
        const url = options.url ?? server.url;
        await client.connect(new sdk.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
        dispatch = httpDispatch(url);
    } else {
        const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
        const transport = tappedStdio(new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, '--stdio', ...inMemory(options.args), ...(options.args ?? [])], stderr: 'ignore' }) as unknown as Transport);
        await client.connect(transport as never);
        dispatch = request => transport.dispatch(request);
    }
    assert.equal(client.getProtocolEra(), v2 ? 'modern' : 'legacy');
    // 2025-11-25 input requests go through ext-tasks' own routing, with no handler of our own: the
    // server holds a task's requests until the client has named the task (unseenTasks.ts).
    const session = ext.createTaskSessionFromClient(client, {
        endpointId: `${kind}-${v2 ? V2 : '2025-11-25'}`,
        onInputRequest: async (request: { kind: string }) => (options.onInputRequest ?? defaultAnswer)(request) as never,
        ...(options.onError ? { onError: options.onError } : {}),
        ...(v2 ? { rawDispatch: dispatch, v2RequestFraming: { protocolVersion: V2, clientInfo: CLIENT_INFO, clientCapabilities: capabilities(true) } } : {}),
    } as never);
    return {
        session,
        close: async () => {
            await session.close();
            await client.close();
        },
    };
}

function text(result: unknown): string {
    return ((result as { content?: { text?: string }[] }).content ?? []).map(part => part.text ?? '').join(' ');
}

describe('the official ext-tasks client', { timeout: 180_000 }, () => {
    before(async () => {
        await load();
        server = await startHttpServer(['--token', TOKEN]);
    });

    after(() => server?.stop());

    for (const kind of ['http', 'stdio'] as const) {
        for (const v2 of [false, true]) {
            it(`drives slow_compute, failing_job, confirm_delete, deploy and a cancel over ${kind}, protocol ${v2 ? V2 : '2025-11-25'}`, async () => {
                const { session, close } = await connect(kind, v2);
                try {
                    const compute = await (await session.callTool('slow_compute', { seconds: 1, label: 'ext' })).settle();
                    assert.equal(compute.outcome.status, 'completed');
                    assert.match(text(ext.resultFromTaskOutcome(compute.outcome)), /Computation "ext" completed/);

                    const failing = await session.callTool('failing_job', {});
                    assert.equal(failing.kind, 'task');
                    const failed = (await failing.settle()).outcome;
                    if (v2) {
                        // 2026-07-28: a tool error is a completed task whose result says isError.
                        assert.equal(failed.status, 'completed');
                        assert.equal((ext.resultFromTaskOutcome(failed) as { isError?: boolean }).isError, true);
                    } else {
                        assert.equal(failed.status, 'failed');
                        assert.match(failed.status === 'failed' ? failed.error.message : '', /Job failed/);
                    }

                    const deleted = (await (await session.callTool('confirm_delete', { filename: 'ext.txt' })).settle()).outcome;
                    assert.equal(deleted.status, 'completed');
                    assert.equal(text(ext.resultFromTaskOutcome(deleted)), "Confirmed: would delete 'ext.txt' (demo: nothing deleted)");

                    const deployed = (await (await session.callTool('deploy', { app: 'ext-app' })).settle()).outcome;
                    assert.equal(deployed.status, 'completed');
                    assert.match(text(ext.resultFromTaskOutcome(deployed)), /ext-app/);

                    const long = await session.callTool('slow_compute', { seconds: 60, label: 'to cancel' }, { task: { preference: 'require' } });
                    assert.equal(long.kind, 'task');
                    await long.cancel();
                    assert.equal((await long.settle()).outcome.status, 'cancelled');
                } finally {
                    await close();
                }
            });
        }
    }

    for (const kind of ['stdio', 'http'] as const) {
    it(`over ${kind}, protocol 2025-11-25: write_haiku and confirm_delete each complete with the answer 20 times in a row`, async () => {
        let asked = 0;
        const errors: string[] = [];
        // A short poll: the client names its task (tasks/get) sooner, so the loop runs fast.
        const fast = ['--poll-interval', '50ms'];
        const own = kind === 'http' ? await startHttpServer(['--token', TOKEN, ...fast]) : undefined;
        const { session, close } = await connect(kind, false, {
            args: fast,
            url: own?.url,
            onInputRequest: request => {
                asked++;
                return request.kind === 'elicitation'
                    ? { action: 'accept', content: { confirm: 'delete' } }
                    : { role: 'assistant', model: 'test', content: { type: 'text', text: `haiku number ${asked}` } };
            },
            onError: error => errors.push(`${error.name}: ${error.message}`),
        });
        const outcomes = { write_haiku: [] as string[], confirm_delete: [] as string[] };
        try {
            for (let i = 0; i < 20; i++) {
                const haiku = (await (await session.callTool('write_haiku', { topic: `loop ${i}` })).settle()).outcome;
                outcomes.write_haiku.push(haiku.status === 'completed' ? text(ext.resultFromTaskOutcome(haiku)) : haiku.status);
                const deleted = (await (await session.callTool('confirm_delete', { filename: `loop-${i}.txt` })).settle()).outcome;
                outcomes.confirm_delete.push(deleted.status === 'completed' ? text(ext.resultFromTaskOutcome(deleted)) : deleted.status);
            }
        } finally {
            await close();
            await own?.stop();
        }
        assert.deepEqual(errors, [], 'ext-tasks routed every input request to its task');
        assert.equal(asked, 40);
        assert.deepEqual(
            outcomes.write_haiku.map(line => line.replace(/haiku number \d+/, 'haiku number N')),
            outcomes.write_haiku.map((_, i) => `Haiku about loop ${i}:\nhaiku number N`),
        );
        assert.deepEqual(
            outcomes.confirm_delete,
            outcomes.confirm_delete.map((_, i) => `Confirmed: would delete 'loop-${i}.txt' (demo: nothing deleted)`),
        );
    });
    }
});
