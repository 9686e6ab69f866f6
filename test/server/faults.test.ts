/**
 * Faults: clients that vanish mid-task, GET streams that drop and come back, callers that leave a
 * tasks/result behind, and SIGTERM in the middle of load. Each against a real server process.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { SimulatedJobSystem } from '../../server/src/demo/simulatedJobs.js';
import { httpServerPerSuite, startHttpServer } from '../support/helpers.js';
import { mib, MiB, rssOf } from '../support/lightRpc.js';
import { exitWithin } from '../support/rawHelpers.js';
import { waitUntil } from '../support/wait.js';
import { type Msg, RawHttp, type StreamHandle } from '../support/rawHttp.js';

const RELATED = 'io.modelcontextprotocol/related-task';

function taskIdOf(message: Msg): string | undefined {
    if (message.method === 'notifications/tasks/status') {
        return message.params?.taskId as string;
    }
    return (message.params?._meta as Record<string, { taskId?: string }> | undefined)?.[RELATED]?.taskId;
}

/** Reopens the session's GET stream; the server may not have noticed the old one close yet (409). */
async function reopenStream(client: RawHttp, onMessage: (m: Msg) => void): Promise<StreamHandle> {
    return waitUntil(async () => {
        const stream = await client.openStream(onMessage);
        assert.ok(stream.status === 200 || stream.status === 409, `only a stream the server still thinks open may refuse (${stream.status})`);
        return stream.status === 200 ? stream : undefined;
    }, 'the server to accept a new GET stream');
}

/**
 * POSTs a request on a connection of its own; `sent` resolves once it is on the wire and `cut()`
 * drops the connection before any answer.
 */
function postAndVanish(url: string, sessionId: string, body: object): { sent: Promise<void>; cut(): void } {
    const req = request(url, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
    });
    req.on('error', () => undefined);
    req.on('response', res => res.resume());
    const sent = new Promise<void>(resolve => req.once('finish', () => resolve()));
    req.end(JSON.stringify(body));
    return { sent, cut: () => req.destroy() };
}

describe('a client that disconnects', () => {
    const server = httpServerPerSuite(['--poll-interval', '100ms', '--log-level', 'debug']);

    it('leaves its task running; the same session gets the result on a new connection', async () => {
        const first = new RawHttp(server.url);
        await first.initialize({ name: 'vanishing' });
        const pushed: Msg[] = [];
        const stream = await first.openStream(m => pushed.push(m));
        const taskId = (await first.createTask({ seconds: 1.5, label: 'mid-task' })).taskId;
        // Cut everything this client has open, a tasks/result in flight included.
        const waiting = first.call('tasks/result', { taskId }).catch((err: Error) => err);
        await server.log.waitFor(new RegExp(`\\[session\\] tasks/result for ${taskId} waiting`));
        first.destroy();
        stream.close();
        assert.ok((await waiting) instanceof Error, 'the cut tasks/result never answered');

        const again = new RawHttp(server.url);
        again.sessionId = first.sessionId;
        const status = await again.result('tasks/get', { taskId });
        assert.equal(status.status, 'working', 'the task outlived the connection');
        const result = await again.result('tasks/result', { taskId });
        assert.deepEqual(result.content, [{ type: 'text', text: 'Computation "mid-task" completed after 1.5 seconds. Result: 42.' }]);
        assert.equal((await again.result('tasks/get', { taskId })).status, 'completed');
        assert.ok(!server.log.lines.some(line => line.includes('[slow_compute] cancelled "mid-task"')));
        await again.close();
    });

    it('stops an inline call (no task) whose connection is cut: that work is tied to its request', async () => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const waiting = client.call('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: 'inline-cut' } }).catch((err: Error) => err);
        await server.log.waitFor(/\[2025-11-25\] tools\/call slow_compute running inline/);
        client.destroy();
        assert.ok((await waiting) instanceof Error);
        await server.log.waitFor(/\[slow_compute\] cancelled "inline-cut" at 0\/30/);
    });
});

describe('a GET stream that drops and reconnects', () => {
    const server = httpServerPerSuite(['--poll-interval', '100ms']);

    it('resumes notifications on the new stream, including for tasks started before the drop', async () => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const before: Msg[] = [];
        const stream1 = await client.openStream(m => before.push(m));
        const quick = (await client.createTask({ seconds: 0, label: 'before-drop' })).taskId;
        await waitUntil(() => before.some(m => taskIdOf(m) === quick && m.params?.status === 'completed'), 'the first stream to carry a notification');
        const spanning = (await client.createTask({ seconds: 1.5, label: 'spanning' })).taskId;

        stream1.close();
        await stream1.closed;
        // While no stream is open, a status change has nowhere to go: it is not queued (clients poll).
        const unseen = (await client.createTask({ seconds: 0, label: 'while-dropped' })).taskId;
        await waitUntil(async () => (await client.result('tasks/get', { taskId: unseen })).status === 'completed', 'the task to end');

        const afterDrop: Msg[] = [];
        const stream2 = await reopenStream(client, m => afterDrop.push(m));
        assert.equal(stream2.status, 200);
        const fresh = (await client.createTask({ seconds: 0, label: 'after-reconnect' })).taskId;
        await waitUntil(() => afterDrop.some(m => taskIdOf(m) === fresh && m.params?.status === 'completed'), 'a notification on the new stream');
        await waitUntil(() => afterDrop.some(m => taskIdOf(m) === spanning && m.params?.status === 'completed'), "the spanning task's end on the new stream");
        assert.ok(!before.some(m => taskIdOf(m) === fresh || taskIdOf(m) === spanning), 'nothing went to the dead stream');
        assert.ok(!afterDrop.some(m => taskIdOf(m) === unseen), 'no backlog is replayed');
        stream2.close();
        await client.close();
    });

    it('delivers an elicitation queued while no stream was open once one opens, and takes the answer after another drop', async () => {
        const client = new RawHttp(server.url);
        await client.initialize({ capabilities: { elicitation: {} } });
        const taskId = (await client.createTask({ filename: 'drop.txt' }, 'confirm_delete')).taskId;
        await waitUntil(async () => (await client.result('tasks/get', { taskId })).status === 'input_required', 'input_required');

        const asked: Msg[] = [];
        const stream = await client.openStream(m => m.method === 'elicitation/create' && asked.push(m));
        const request = await waitUntil(() => asked[0], 'the queued elicitation on the new stream');
        assert.deepEqual((request.params?._meta as Record<string, unknown>)[RELATED], { taskId });
        // The stream drops before the user answers; the answer still arrives by POST.
        stream.close();
        await stream.closed;
        const answer = await client.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { confirm: 'delete' } } });
        assert.equal(answer.status, 202);
        const result = await client.result('tasks/result', { taskId });
        assert.deepEqual(result.content, [{ type: 'text', text: "Confirmed: would delete 'drop.txt' (demo: nothing deleted)" }]);
        assert.equal(asked.length, 1, 'delivered exactly once');
        await client.close();
    });
});

describe('callers that leave a tasks/result behind', () => {
    const server = httpServerPerSuite(['--log-level', 'debug', '--session-idle-timeout', '1s']);

    it('release their waiters: one debug line each, the session goes idle, and RSS does not grow with them', { timeout: 120_000 }, async t => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const taskId = (await client.createTask({ seconds: 120, label: 'waited-on' })).taskId;
        const released = () => server.log.lines.filter(line => line.includes(`[session] tasks/result for ${taskId} released`)).length;
        const cycle = async (count: number) => {
            const before = released();
            const posts = Array.from({ length: count }, (_, i) => postAndVanish(server.url, client.sessionId!, { jsonrpc: '2.0', id: `r-${i}`, method: 'tasks/result', params: { taskId } }));
            await Promise.all(posts.map(p => p.sent));
            // A marker on another connection: answered after the server has read the requests sent before it.
            await client.call('ping');
            posts.forEach(p => p.cut());
            await waitUntil(() => released() >= before + count, `${count} released waiters`);
        };
        const pid = server.proc.pid!;
        for (let i = 0; i < 4; i++) {
            await cycle(50);
        }
        const baseline = rssOf(pid);
        const cycles = Number(process.env.FAULTS_CYCLES ?? 20);
        for (let i = 0; i < cycles; i++) {
            await cycle(100);
            if (process.env.FAULTS_RSS_TRACE) {
                t.diagnostic(`cycle ${i}: ${mib(rssOf(pid))}`);
            }
        }
        const grown = rssOf(pid) - baseline;
        t.diagnostic(`${cycles * 100} abandoned tasks/result calls: RSS ${mib(baseline)} → ${mib(baseline + grown)}`);
        assert.equal(released(), 200 + cycles * 100);
        // Generous: V8 grows its old space until its next full GC (about 40 MiB here, then it plateaus).
        assert.ok(grown < 48 * MiB, `RSS grew ${mib(grown)} over ${cycles * 100} abandoned waits`);

        // Nothing is left in flight: the session is idle, so the sweep closes it (a leaked waiter keeps a session busy forever).
        await server.log.waitFor(new RegExp(`closing idle session ${client.sessionId!.slice(0, 8)}`));
        await server.log.waitFor(/\[slow_compute\] cancelled "waited-on"/);
        client.destroy();
    });
});

describe('SIGTERM during load', () => {
    it('cancels every running task with "Server shutting down", answers the waiting tasks/result calls, and exits 0', { timeout: 60_000 }, async t => {
        const token = randomBytes(16).toString('hex');
        const server = await startHttpServer(['--token', token, '--log-level', 'debug']);
        const clients: { http: RawHttp; pushed: Msg[]; stream: StreamHandle; long: string[] }[] = [];
        let churning = true;
        let churned = 0;
        const churn: Promise<unknown>[] = [];
        try {
            for (let i = 0; i < 10; i++) {
                const http = new RawHttp(server.url, { authorization: `Bearer ${token}` });
                await http.initialize({ name: `term-${i}` });
                const pushed: Msg[] = [];
                const stream = await http.openStream(m => pushed.push(m));
                const long = await Promise.all(Array.from({ length: 10 }, (_, j) => http.createTask({ seconds: 60, label: `term-${i}-${j}` }).then(t => t.taskId)));
                clients.push({ http, pushed, stream, long });
            }
            // Short tasks keep coming while the signal lands.
            for (const c of clients) {
                churn.push(
                    (async () => {
                        while (churning) {
                            const id = await c.http.createTask({ seconds: 0.05, label: 'churn' }).then(t => t.taskId).catch(() => undefined);
                            if (!id) {
                                return;
                            }
                            churned++;
                            await c.http.call('tasks/get', { taskId: id }).catch(() => undefined);
                        }
                    })(),
                );
            }
            // Two waiting tasks/result per client, on its long tasks.
            const waits = clients.flatMap(c => c.long.slice(0, 2).map(taskId => c.http.call('tasks/result', { taskId }).catch((err: Error) => err)));
            // The signal must land in the middle of load: every wait taken up, every client churning.
            await waitUntil(() => server.log.lines.filter(line => / tasks\/result for \S+ waiting$/.test(line)).length >= waits.length, `${waits.length} waiting tasks/result calls`, { on: server.log.changes });
            await waitUntil(() => churned >= clients.length, 'every client to have churned a task');

            const started = Date.now();
            const exited = exitWithin(server.proc);
            server.proc.kill('SIGTERM');
            assert.deepEqual(await exited, { code: 0, signal: null });
            const exitMs = Date.now() - started;
            churning = false;
            await Promise.all(churn);

            for (const c of clients) {
                await waitUntil(() => c.long.every(id => c.pushed.some(m => taskIdOf(m) === id && m.params?.status === 'cancelled')), `cancelled notifications for ${c.long.length} tasks`);
                for (const id of c.long) {
                    const note = c.pushed.find(m => taskIdOf(m) === id && m.params?.status === 'cancelled')!;
                    assert.equal(note.params?.statusMessage, 'Server shutting down');
                    assert.ok(!c.pushed.slice(c.pushed.indexOf(note) + 1).some(m => taskIdOf(m) === id), 'nothing after the terminal notification');
                }
            }
            for (const answer of await Promise.all(waits)) {
                assert.ok(!(answer instanceof Error), `a waiting tasks/result was answered: ${String(answer)}`);
                assert.deepEqual(answer.result?.content, [{ type: 'text', text: 'Task cancelled: Server shutting down' }]);
            }
            t.diagnostic(`SIGTERM with 100 running tasks, 20 waiting tasks/result calls and 10 clients churning: exit 0 after ${exitMs} ms`);
            assert.ok(server.log.lines.some(line => line.includes('[http] stopping (SIGTERM)')));
        } finally {
            churning = false;
            for (const c of clients) {
                c.stream.close();
                c.http.destroy();
            }
            await server.stop('SIGKILL');
        }
    });
});

describe('the simulated external job system', () => {
    it('forgets a finished job after its retention, so it does not grow with every job ever run', async t => {
        // In-process and timer-driven: the test moves the clock instead of waiting on it.
        t.mock.timers.enable({ apis: ['setTimeout'] });
        const jobs = new SimulatedJobSystem(10, 50);
        const kept = () => (jobs as unknown as { jobs: Map<string, unknown> }).jobs.size;
        const done = await jobs.start({ job_id: 'a' });
        const cancelled = await jobs.start({ job_id: 'b' });
        await jobs.cancel(cancelled);
        t.mock.timers.tick(10);
        assert.equal((await jobs.getStatus(done)).status, 'completed');
        assert.deepEqual((await jobs.getResult(done)).content, [{ type: 'text', text: 'External job a completed' }]);
        assert.equal(kept(), 2, 'finished jobs are kept for their retention');
        t.mock.timers.tick(50);
        assert.equal(kept(), 0, 'the finished jobs are forgotten');
    });
});
