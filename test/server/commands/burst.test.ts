/**
 * A burst of command starts from one client leaves the others served: 500 start_<tool> calls
 * arriving together held the server for seconds, and --abandon-after then cancelled another
 * client's healthy task because its polls went unread. Real server, real processes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, startHttpServer, type Connected, type HttpServer } from '../../support/helpers.js';
import { RawHttp } from '../../support/rawHttp.js';
import { posixOnly } from '../../support/platforms.js';

const STARTS = 500;
const POLL_MS = 200;
/** The burst client's connections. */
const SOCKETS = 100;
/**
 * How long one of the burst's exchanges may take, queueing for its socket included: the last of
 * 500 calls on 100 sockets waits for the ones before it, which on a loaded 2-core machine took
 * over the default 30 s. A hang is still caught; how fast is the bench's row, not this test's.
 */
const BURST_EXCHANGE_MS = 180_000;
/** The burst's exchanges: that long, and a request cut by the server's keep-alive close before it read it is sent again (Node's keep-alive race, seen under load). */
const BURST_OPTIONS = { timeoutMs: BURST_EXCHANGE_MS, resendIfKeepAliveCut: true };

describe('500 command starts at once from one client', posixOnly('the command is the POSIX program `true`, which Windows lacks'), () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmd-burst-'));
    let server: HttpServer;
    let other: Connected;

    before(async () => {
        const file = join(dir, 'commands.json');
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'quick', description: 'Ends at once.', command: ['true'], whenBusy: 'queue' }] }));
        // Every start may run at once (the worst case), and a task unpolled for 1 s is abandoned:
        // under the time the burst held the server without pacing, over a loaded machine's hiccups.
        // The burst's 100 sockets may all be mid-body at once while the server forks: this is about
        // starts, not --max-pending-bodies (32 a credential by default, its own test), so it allows them all.
        server = await startHttpServer(['--commands', file, '--max-command-processes', String(STARTS), '--poll-interval', String(POLL_MS), '--abandon-after', '1000', '--max-pending-bodies', String(SOCKETS)]);
        other = await connect('http', server, { name: 'other' });
    });
    after(async () => {
        await other.close();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
    });

    it("leaves another client's pings all answered and its polled task never abandoned", async () => {
        const { task } = await other.client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 300 }, task: {} } }, CreateTaskResultSchema);
        // Until the burst is over, the other client polls at the interval the server asks for, and pings all along.
        let bursting = true;
        const statuses: string[] = [];
        let pingsSent = 0;
        const pingErrors: unknown[] = [];
        const polls = (async () => {
            while (bursting) {
                statuses.push((await other.client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema)).status);
                await new Promise(resolve => setTimeout(resolve, POLL_MS));
            }
        })();
        const pings = (async () => {
            while (bursting) {
                pingsSent++;
                await other.client.ping().catch(err => pingErrors.push(err));
                await new Promise(resolve => setTimeout(resolve, 20));
            }
        })();

        // The burst: a raw client, light on this process's own event loop, so the other client's polls leave on time.
        const burst = new RawHttp(server.url, {}, new Agent({ keepAlive: true, maxSockets: SOCKETS }));
        // A failed burst stops the polls and pings too, or they would hold the test process open.
        try {
            await burst.initialize({ name: 'burst' });
            const started = await Promise.all(Array.from({ length: STARTS }, () => burst.call('tools/call', { name: 'start_quick', arguments: {} }, BURST_OPTIONS)));
            const taskIds = started.map(answer => (answer.result?.structuredContent as { task_id?: string } | undefined)?.task_id);
            assert.equal(new Set(taskIds.filter(id => id !== undefined)).size, STARTS, 'every start gave a task of its own');
            await Promise.all(taskIds.map(taskId => burst.call('tasks/result', { taskId }, BURST_OPTIONS)));
            const ends = await Promise.all(taskIds.map(taskId => burst.call('tasks/get', { taskId }, BURST_OPTIONS)));
            assert.deepEqual(
                ends.map(answer => answer.result?.status),
                Array.from({ length: STARTS }, () => 'completed'),
                'every run of the burst completed',
            );
        } finally {
            bursting = false;
            await Promise.all([polls, pings]);
            burst.agent.destroy();
        }

        assert.deepEqual(pingErrors, [], `all ${pingsSent} pings were answered`);
        assert.ok(statuses.length > 0);
        assert.deepEqual(
            statuses.filter(status => status !== 'working'),
            [],
            `every one of ${statuses.length} polls saw the task working`,
        );
        const now = await other.client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema);
        assert.equal(now.status, 'working', 'never abandoned');
        assert.equal(
            server.log.lines.filter(line => line.includes(task.taskId) && /stopped following/.test(line)).length,
            0,
            'the server never thought its client gone',
        );
        await other.client.experimental.tasks.cancelTask(task.taskId);
    });
});
