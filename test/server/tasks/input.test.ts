import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
    CallToolResultSchema,
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    type CreateMessageRequest,
    type CreateMessageResult,
    type ElicitRequest,
    type ElicitResult,
    McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { connectAlone } from '../../support/fleet.js';
import { connect, startHttpServer, textOf, TRANSPORTS, type Connected, type HttpServer } from '../../support/helpers.js';
import { RawHttp } from '../../support/rawHttp.js';
import { Feed, waitUntil } from '../../support/wait.js';
import { marker, MessageTap, pollUntilTerminal, RELATED, relatedOf, startTask, warmUp, type Message } from '../../support/messageTap.js';

/** A request the client received and has not answered yet. */
interface Asked<Req, Res> {
    request: Req;
    signal: AbortSignal;
    answer(result: Res): void;
    fail(error: Error): void;
}

/** Installs a handler that parks every request until the test answers it; the array length counts handler runs. */
function park<Req, Res>(): { asked: Asked<Req, Res>[]; handler: (request: Req, extra: { signal: AbortSignal }) => Promise<Res> } {
    const asked: Asked<Req, Res>[] = [];
    return {
        asked,
        handler: (request, extra) => new Promise<Res>((resolve, reject) => asked.push({ request, signal: extra.signal, answer: resolve, fail: reject })),
    };
}

/**
 * Starts a task and names it in a tasks/get, as VS Code's polling does: the server holds a task's
 * requests until its client has named it (unseenTasks.ts), so they go at once instead of after
 * UNSEEN_GRACE_MS (2 s a test; the grace itself is test/unit/server/mcp/unseenTasks.test.ts's).
 */
async function startNamed(client: Connected['client'], name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<string> {
    const taskId = await startTask(client, name, args, meta);
    await client.experimental.tasks.getTask(taskId);
    return taskId;
}

for (const kind of TRANSPORTS) {
    describe(`elicitation and sampling during a task over ${kind}`, () => {
        let c: Connected & { server?: HttpServer };
        let tap: MessageTap;
        const elicit = park<ElicitRequest, ElicitResult>();
        const sample = park<CreateMessageRequest, CreateMessageResult>();

        before(async () => {
            c = await connectAlone(kind, { capabilities: { elicitation: {}, sampling: {} } });
            c.client.setRequestHandler(ElicitRequestSchema, elicit.handler);
            c.client.setRequestHandler(CreateMessageRequestSchema, sample.handler);
            tap = MessageTap.attach(c.client);
            await warmUp(c.client, tap);
        });
        after(() => c?.close());

        // The answer, the result text, and the outcome the completed task keeps as its statusMessage.
        const answers: [string, ElicitResult, string, string][] = [
            ['accept with delete', { action: 'accept', content: { confirm: 'delete' } }, "Confirmed: would delete 'x' (demo: nothing deleted)", 'Confirmed'],
            ['accept with keep', { action: 'accept', content: { confirm: 'keep' } }, 'Deletion cancelled', 'Kept the file'],
            // A client written for the seed's boolean question answers true: that is consent; false, or any other value, is not.
            ['accept with true (the seed\'s boolean answer)', { action: 'accept', content: { confirm: true } }, "Confirmed: would delete 'x' (demo: nothing deleted)", 'Confirmed'],
            ['accept with false', { action: 'accept', content: { confirm: false } }, 'Deletion cancelled', 'Declined'],
            ['accept with a string "true"', { action: 'accept', content: { confirm: 'true' } }, 'Deletion cancelled', 'Declined'],
            ['accept with no field', { action: 'accept', content: {} }, 'Deletion cancelled', 'Declined'],
            ['decline', { action: 'decline' }, 'Deletion cancelled', 'Declined'],
            ['cancel', { action: 'cancel' }, 'Deletion cancelled', 'Dismissed'],
        ];
        for (const [label, answer, expected, outcome] of answers) {
            it(`confirm_delete asks the client directly, without tasks/result (${label} → ${expected}, ${outcome})`, async () => {
                const askedBefore = elicit.asked.length;
                const taskId = await startNamed(c.client, 'confirm_delete', { filename: 'x' });

                const ask = await waitUntil(() => elicit.asked[askedBefore], 'the elicitation request');
                assert.equal(ask.request.params.message, "Delete 'x'? This cannot be undone.");
                assert.equal(ask.request.params.mode, 'form');
                // Keep is first and the default, so Enter in any client (VS Code's own form too) keeps the file.
                assert.deepEqual((ask.request.params as { requestedSchema: unknown }).requestedSchema, {
                    type: 'object',
                    properties: {
                        confirm: {
                            type: 'string',
                            title: 'Delete the file',
                            description: "Keep leaves 'x' as it is; Delete deletes it",
                            oneOf: [
                                { const: 'keep', title: 'Keep the file' },
                                { const: 'delete', title: "Delete 'x'" },
                            ],
                            default: 'keep',
                        },
                    },
                    required: ['confirm'],
                });
                assert.deepEqual(ask.request.params._meta?.[RELATED], { taskId });
                const wire = tap.requests('elicitation/create', taskId);
                assert.equal(wire.length, 1, 'one elicitation/create on the wire');
                assert.deepEqual(relatedOf(wire[0]!.message), { taskId });

                // input_required is visible both ways while the question is open.
                const waiting = await c.client.experimental.tasks.getTask(taskId);
                assert.equal(waiting.status, 'input_required');
                assert.match(waiting.statusMessage ?? '', /Waiting for the user: Delete 'x'\?/);
                await tap.waitForStatus(taskId, 'input_required');

                ask.answer(answer);
                assert.equal(await pollUntilTerminal(c.client, taskId), 'completed');
                await tap.waitForStatus(taskId, 'completed');
                // The outcome stays on the completed task, in tasks/get and in its status notification.
                assert.equal((await c.client.experimental.tasks.getTask(taskId)).statusMessage, outcome);
                assert.equal(tap.statusNotes(taskId).at(-1)?.message.params?.statusMessage, outcome);
                assert.equal(
                    tap.sent('tasks/result').filter(s => s.message.params?.taskId === taskId).length,
                    0,
                    'the request arrived although the client never called tasks/result',
                );
                assert.deepEqual(tap.statuses(taskId), ['input_required', 'working', 'completed']);

                const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
                assert.equal(textOf(result), expected);
                assert.notEqual(result.isError, true);

                // A marker task's completed notification: anything sent before it on the stream is here by now.
                await marker(c.client, tap);
                assert.equal(elicit.asked.length, askedBefore + 1, 'the handler ran exactly once');
                assert.equal(tap.requests('elicitation/create', taskId).length, 1);
            });
        }

        it('tells a client that gave a progress token each step of confirm_delete as progress, in step with statusMessage', async () => {
            const askedBefore = elicit.asked.length;
            const token = `tok-input-${kind}`;
            const taskId = await startNamed(c.client, 'confirm_delete', { filename: 'p.txt' }, { progressToken: token });
            const ask = await waitUntil(() => elicit.asked[askedBefore], 'the elicitation request');
            const waitingNote = await tap.until(() => tap.progressFor(taskId)[0], 'the waiting progress note');
            const waiting = await c.client.experimental.tasks.getTask(taskId);
            assert.equal(waiting.status, 'input_required');
            assert.match(waiting.statusMessage ?? '', /^Waiting for the user: Delete 'p\.txt'\?/);
            assert.equal(waitingNote.message.params?.message, waiting.statusMessage, 'what the client is shown is what tasks/get says');
            assert.equal(waitingNote.message.params?.progressToken, token);

            ask.answer({ action: 'accept', content: { confirm: 'delete' } });
            await tap.waitForStatus(taskId, 'completed');
            await marker(c.client, tap);
            const notes = tap.progressFor(taskId).map(p => p.message.params ?? {});
            assert.deepEqual(
                notes.map(n => n.message),
                tap.statusNotes(taskId).map(n => n.message.params?.statusMessage),
                'each progress message is the statusMessage of the status it announces',
            );
            // The last one, the outcome, comes before the completed status: no progress may follow it.
            assert.deepEqual(notes.map(n => n.message), [waiting.statusMessage, "Got the user's answer; continuing", 'Confirmed']);
            const values = notes.map(n => Number(n.progress));
            assert.ok(values.every((v, i) => i === 0 || v > values[i - 1]!), `progress increases: ${values.join(', ')}`);
            assert.deepEqual(tap.afterTerminal(taskId), []);
        });

        it('write_haiku samples through the client with the prompt, maxTokens and related-task _meta', async () => {
            const askedBefore = sample.asked.length;
            const taskId = await startNamed(c.client, 'write_haiku', { topic: 'autumn rain' });

            const ask = await waitUntil(() => sample.asked[askedBefore], 'the sampling request');
            const { params } = ask.request;
            assert.equal(params.maxTokens, 50);
            assert.equal(params.messages.length, 1);
            assert.equal(params.messages[0]!.role, 'user');
            assert.deepEqual(params.messages[0]!.content, { type: 'text', text: 'Write a haiku about autumn rain' });
            assert.deepEqual(params._meta?.[RELATED], { taskId });
            assert.deepEqual(relatedOf(tap.requests('sampling/createMessage', taskId)[0]!.message), { taskId });

            const waiting = await c.client.experimental.tasks.getTask(taskId);
            assert.equal(waiting.status, 'input_required');
            await tap.waitForStatus(taskId, 'input_required');

            ask.answer({ role: 'assistant', model: 'test-model', content: { type: 'text', text: '  Grey drops on the pond\nripples meet and fade away\nthe old frog stays dry  ' } });
            assert.equal(await pollUntilTerminal(c.client, taskId), 'completed');
            const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
            assert.equal(textOf(result), 'Haiku about autumn rain:\nGrey drops on the pond\nripples meet and fade away\nthe old frog stays dry');
            await tap.waitForStatus(taskId, 'completed');
            assert.deepEqual(tap.statuses(taskId), ['input_required', 'working', 'completed']);
            await marker(c.client, tap);
            assert.equal(sample.asked.length, askedBefore + 1, 'the sampling handler ran exactly once');
        });

        it('cancelling a task blocked on elicitation withdraws the request and ignores a late answer', async () => {
            const askedBefore = elicit.asked.length;
            const taskId = await startNamed(c.client, 'confirm_delete', { filename: 'keep.txt' });
            const ask = await waitUntil(() => elicit.asked[askedBefore], 'the elicitation request');
            await tap.waitForStatus(taskId, 'input_required');
            const requestId = tap.requests('elicitation/create', taskId)[0]!.message.id;
            assert.notEqual(requestId, undefined);

            const cancelled = await c.client.experimental.tasks.cancelTask(taskId);
            assert.equal(cancelled.status, 'cancelled');
            const withdrawn = await waitUntil(() => tap.notifications('notifications/cancelled').find(s => s.message.params?.requestId === requestId), `notifications/cancelled for request ${String(requestId)}`);
            assert.equal(typeof withdrawn.message.params?.reason, 'string');
            assert.deepEqual(relatedOf(withdrawn.message), { taskId }, 'the withdrawal is tagged with the task like the request');
            await waitUntil(() => ask.signal.aborted, 'the SDK to abort the parked handler');
            await tap.waitForStatus(taskId, 'cancelled');

            // The SDK drops answers to withdrawn requests, so the late answer goes out raw.
            ask.answer({ action: 'accept', content: { confirm: 'delete' } });
            await MessageTap.send(c.client, { jsonrpc: '2.0', id: requestId!, result: { action: 'accept', content: { confirm: 'delete' } } });
            // The server handles one connection's messages in order: it has dropped the late answer before it answers the marker.
            await marker(c.client, tap);

            const now = await c.client.experimental.tasks.getTask(taskId);
            assert.equal(now.status, 'cancelled');
            assert.equal(now.statusMessage, 'Cancelled by the client');
            const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
            assert.equal(result.isError, true);
            assert.match(textOf(result), /cancelled/i);
            assert.doesNotMatch(textOf(result), /Confirmed/);
            assert.deepEqual(tap.statuses(taskId), ['input_required', 'cancelled']);
            assert.deepEqual(tap.afterTerminal(taskId), []);
            assert.equal(elicit.asked.length, askedBefore + 1);
        });

        it('fails the task with an isError result (not a JSON-RPC error) when the client answers with an error', async () => {
            const askedBefore = elicit.asked.length;
            const taskId = await startNamed(c.client, 'confirm_delete', { filename: 'e.txt' });
            const ask = await waitUntil(() => elicit.asked[askedBefore], 'the elicitation request');
            ask.fail(new McpError(-32602, 'form rejected by the test'));
            assert.equal(await pollUntilTerminal(c.client, taskId), 'failed');
            const failed = await c.client.experimental.tasks.getTask(taskId);
            assert.match(failed.statusMessage ?? '', /The client answered elicitation\/create with an error: .*form rejected by the test.*\(code -32602\)/);
            // -32602 from tasks/result would mean "no such task"; the task exists and its tool failed.
            const result = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
            assert.equal(result.isError, true);
            assert.match(textOf(result), /form rejected by the test/);
            await tap.waitForStatus(taskId, 'failed');
            assert.deepEqual(tap.statuses(taskId), ['input_required', 'working', 'failed']);
        });

        it('fails confirm_delete and write_haiku for a client that did not declare the capability, saying why', async () => {
            const [elicitBefore, sampleBefore] = [elicit.asked.length, sample.asked.length];
            const bare = await connect(kind, c.server, { capabilities: {} });
            try {
                const bareTap = MessageTap.attach(bare.client);
                const cases: [string, Record<string, unknown>, string][] = [
                    ['confirm_delete', { filename: 'x' }, 'elicitation'],
                    ['write_haiku', { topic: 'x' }, 'sampling'],
                ];
                for (const [tool, args, capability] of cases) {
                    const taskId = await startTask(bare.client, tool, args);
                    assert.equal(await pollUntilTerminal(bare.client, taskId), 'failed');
                    const failed = await bare.client.experimental.tasks.getTask(taskId);
                    assert.match(failed.statusMessage ?? '', new RegExp(`Nobody can answer this task.s ${capability} request: the client that started this task did not declare the ${capability} capability`));
                    const result = await bare.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
                    assert.equal(result.isError, true);
                    assert.match(textOf(result), new RegExp(`${capability} capability`));
                    assert.equal(bareTap.requests('elicitation/create').length + bareTap.requests('sampling/createMessage').length, 0);
                }
                // Another connection that could answer must not be asked in this client's place.
                assert.equal(elicit.asked.length, elicitBefore);
                assert.equal(sample.asked.length, sampleBefore);
            } finally {
                await bare.close();
            }
        });
    });
}

/** A POSTed request whose response stream is read as it arrives. */
function streamRequest(raw: RawHttp, method: string, params: Record<string, unknown>): { messages: Feed<Message>; done: Promise<Message[]> } {
    const messages = new Feed<Message>();
    const done = raw.rpc(method, params, { onMessage: m => messages.push(m as Message) }).then(() => messages.items);
    return { messages, done };
}

/** A GET stream that records what it carries. */
async function getStream(raw: RawHttp): Promise<{ messages: Feed<Message>; close(): void }> {
    const messages = new Feed<Message>();
    const stream = await raw.openStream(m => messages.push(m as Message));
    assert.equal(stream.status, 200);
    return { messages, close: stream.close };
}

/** Polls tasks/get (the server's own answer) until the task has this status. */
async function statusReached(raw: RawHttp, taskId: string, status: string): Promise<void> {
    await waitUntil(async () => ((await raw.call('tasks/get', { taskId })).result as { status: string }).status === status, `${taskId} to be ${status}`);
}

const isElicitation = (m: Message) => m.method === 'elicitation/create' && m.id !== undefined;

async function createRawTask(raw: RawHttp, filename: string): Promise<string> {
    const response = await raw.call('tools/call', { name: 'confirm_delete', arguments: { filename }, task: {} });
    const task = (response.result as { task: { taskId: string; status: string } }).task;
    assert.equal(task.status, 'working');
    return task.taskId;
}

async function answer(raw: RawHttp, request: Message, result: Record<string, unknown>): Promise<void> {
    const res = await raw.post({ jsonrpc: '2.0', id: request.id, result });
    assert.equal(res.status, 202);
}

/**
 * Answers a request that reached both a pending tasks/result and a GET stream, then checks the
 * tasks/result ends with `text` and that the request was delivered once across the two; closes the GET stream.
 */
async function answerDeliveredOnce(
    raw: RawHttp,
    request: Message,
    result: Record<string, unknown>,
    pending: ReturnType<typeof streamRequest>,
    get: Awaited<ReturnType<typeof getStream>>,
    text: string,
): Promise<void> {
    await answer(raw, request, result);
    const messages = await pending.done;
    assert.equal(textOf(messages[messages.length - 1]!.result as { content: unknown }), text);
    assert.equal(messages.filter(isElicitation).length + get.messages.items.filter(isElicitation).length, 1);
    get.close();
}

describe('input requests over raw Streamable HTTP', () => {
    let server: HttpServer;
    const closers: (() => void)[] = [];

    before(async () => {
        server = await startHttpServer(['--log-level', 'debug']);
    });
    after(async () => {
        closers.forEach(close => close());
        await server.stop();
    });

    async function session(): Promise<RawHttp> {
        const raw = new RawHttp(server.url);
        await raw.initialize({ capabilities: { elicitation: {} } });
        closers.push(() => void raw.close());
        return raw;
    }

    it('sends the request on the GET stream to a client that only polls tasks/get (the VS Code path)', async () => {
        const raw = await session();
        const get = await getStream(raw);
        closers.push(get.close);
        const taskId = await createRawTask(raw, 'vs.txt');

        const request = await get.messages.waitFor(isElicitation, 'elicitation/create on the GET stream');
        assert.deepEqual(relatedOf(request), { taskId });
        await get.messages.waitFor(m => m.method === 'notifications/tasks/status' && m.params?.status === 'input_required', 'input_required on GET');
        const waiting = await raw.call('tasks/get', { taskId });
        assert.equal((waiting.result as { status: string }).status, 'input_required');

        await answer(raw, request, { action: 'accept', content: { confirm: 'delete' } });
        await get.messages.waitFor(m => m.method === 'notifications/tasks/status' && m.params?.taskId === taskId && m.params?.status === 'completed', 'completed on GET');
        const result = await raw.call('tasks/result', { taskId });
        assert.equal(textOf(result.result as { content: unknown }), "Confirmed: would delete 'vs.txt' (demo: nothing deleted)");
        assert.deepEqual((result.result as { _meta: Record<string, unknown> })._meta[RELATED], { taskId });
        const statuses = get.messages.items.filter(m => m.method === 'notifications/tasks/status' && m.params?.taskId === taskId).map(m => m.params?.status);
        assert.deepEqual(statuses, ['input_required', 'working', 'completed']);
        assert.equal(get.messages.items.filter(isElicitation).length, 1);
        get.close();
    });

    it('without a GET stream, delivers the request once on the tasks/result stream, which then ends with the result', async () => {
        const raw = await session();
        const taskId = await createRawTask(raw, 'y.txt');
        await statusReached(raw, taskId, 'input_required'); // the request is now queued: there is no stream to carry it

        const pending = streamRequest(raw, 'tasks/result', { taskId });
        const request = await pending.messages.waitFor(isElicitation, 'elicitation/create on the tasks/result stream');
        assert.deepEqual(relatedOf(request), { taskId });
        const waiting = await raw.call('tasks/get', { taskId });
        assert.equal((waiting.result as { status: string }).status, 'input_required');

        await answer(raw, request, { action: 'accept', content: { confirm: 'delete' } });
        const messages = await pending.done;
        const final = messages[messages.length - 1]!;
        assert.equal(final.id !== undefined && 'result' in final, true, 'the stream ends with the tasks/result response');
        assert.equal(textOf(final.result as { content: unknown }), "Confirmed: would delete 'y.txt' (demo: nothing deleted)");
        assert.deepEqual((final.result as { _meta: Record<string, unknown> })._meta[RELATED], { taskId });
        assert.equal(messages.filter(isElicitation).length, 1, 'delivered exactly once');
        // With no GET stream, the task's status changes travel on the stream waiting for it. Its first,
        // input_required, goes ANNOUNCE_GAP_MS after the CreateTaskResult: on this stream too when it opened by then.
        const statuses = messages.filter(m => m.method === 'notifications/tasks/status').map(m => m.params?.status);
        assert.deepEqual(statuses[0] === 'input_required' ? statuses.slice(1) : statuses, ['working', 'completed']);
    });

    it('with a GET stream open and tasks/result pending, delivers the request once in total (GET first)', async () => {
        const raw = await session();
        const taskId = await createRawTask(raw, 'g.txt');
        await statusReached(raw, taskId, 'input_required');
        const get = await getStream(raw);
        closers.push(get.close);
        const request = await get.messages.waitFor(isElicitation, 'elicitation/create on the GET stream');
        const pending = streamRequest(raw, 'tasks/result', { taskId });
        // Once the server has taken up the tasks/result, anything it would repeat there is on the wire;
        // a ping answered after that line lets those bytes arrive first.
        await server.log.waitFor(new RegExp(`\\[session\\] tasks/result for ${taskId} waiting`));
        await raw.call('ping');
        assert.equal(pending.messages.items.filter(isElicitation).length, 0, 'not repeated on the tasks/result stream');

        await answerDeliveredOnce(raw, request, { action: 'decline' }, pending, get, 'Deletion cancelled');
    });

    it('with tasks/result pending and then a GET stream opened, delivers the request once in total (tasks/result first)', async () => {
        const raw = await session();
        const taskId = await createRawTask(raw, 'r.txt');
        await statusReached(raw, taskId, 'input_required');
        const pending = streamRequest(raw, 'tasks/result', { taskId });
        const request = await pending.messages.waitFor(isElicitation, 'elicitation/create on the tasks/result stream');
        const get = await getStream(raw);
        closers.push(get.close);
        // A marker task's completed status comes on the GET stream after anything the server sent there on opening it.
        const markerId = (await raw.createTask({ seconds: 0, label: 'marker' })).taskId;
        await get.messages.waitFor(m => m.method === 'notifications/tasks/status' && m.params?.taskId === markerId && m.params?.status === 'completed', 'the marker on the GET stream');
        assert.equal(get.messages.items.filter(isElicitation).length, 0, 'not repeated on the GET stream');

        await answerDeliveredOnce(raw, request, { action: 'accept', content: { confirm: 'delete' } }, pending, get, "Confirmed: would delete 'r.txt' (demo: nothing deleted)");
    });

    it('cancelling withdraws a request delivered on the tasks/result stream and a late answer changes nothing', async () => {
        const raw = await session();
        const taskId = await createRawTask(raw, 'c.txt');
        const pending = streamRequest(raw, 'tasks/result', { taskId });
        const request = await pending.messages.waitFor(isElicitation, 'elicitation/create on the tasks/result stream');

        const cancelled = await raw.call('tasks/cancel', { taskId });
        assert.equal((cancelled.result as { status: string }).status, 'cancelled');
        const messages = await pending.done;
        const withdrawn = messages.filter(m => m.method === 'notifications/cancelled');
        assert.equal(withdrawn.length, 1);
        assert.equal(withdrawn[0]!.params?.requestId, request.id);
        assert.deepEqual(relatedOf(withdrawn[0]!), { taskId });
        const final = messages[messages.length - 1]!;
        assert.ok(final.id !== undefined && 'result' in final, 'the stream ends with the tasks/result response');
        assert.equal((final.result as { isError?: boolean }).isError, true);
        assert.match(textOf(final.result as { content: unknown }), /cancelled/i);

        await answer(raw, request, { action: 'accept', content: { confirm: 'delete' } });
        // The 202 comes after the server has handled the answer: what it did with it shows now.
        const now = await raw.call('tasks/get', { taskId });
        assert.equal((now.result as { status: string }).status, 'cancelled');
        const again = await raw.call('tasks/result', { taskId });
        assert.doesNotMatch(textOf(again.result as { content: unknown }), /Confirmed/);
    });
});
