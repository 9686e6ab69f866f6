/**
 * A task that ends at once: its client reads the CreateTaskResult first, and the task's status
 * notifications only ANNOUNCE_GAP_MS later, never in the same read. VS Code's client drops a
 * status notification it reads in the same batch as the result (it takes the task up a microtask
 * after the result settles) and then waits for its first poll, a second later. Virtual clock, a
 * stdio session on in-memory streams.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { connectStdio, createTasksServer, silentLogger } from '../../../../server/src/index.js';
import { AnnounceTick } from '../../../../server/src/mcp/rev2025/announceTick.js';
import { ANNOUNCE_GAP_MS } from '../../../../server/src/mcp/rev2025/session.js';
import { defineTool, textResult } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained, waitUntil } from '../../../support/wait.js';

const instant = defineTool({
    name: 'instant',
    title: 'Instant',
    description: 'Completes at once.',
    inputSchema: z.object({}),
    taskSupport: 'optional',
    async run() {
        return textResult('done');
    },
});

describe("a task's status notifications after its CreateTaskResult", () => {
    it('wait ANNOUNCE_GAP_MS after the result, so a client never reads them in the same batch', async () => {
        const clock = new ManualClock();
        const server = createTasksServer({ tools: [instant], clock, logger: silentLogger });
        const input = new PassThrough();
        const output = new PassThrough();
        const lines: Record<string, unknown>[] = [];
        let rest = '';
        output.setEncoding('utf8').on('data', (chunk: string) => {
            const parts = (rest + chunk).split('\n');
            rest = parts.pop()!;
            lines.push(...parts.map(line => JSON.parse(line) as Record<string, unknown>));
        });
        connectStdio(server, { input, output });
        const send = (message: Record<string, unknown>) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
        try {
            send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gap', version: '1' } } });
            await waitUntil(() => lines.some(line => line.id === 1) || undefined, 'the initialize answer');
            send({ method: 'notifications/initialized' });
            send({ id: 2, method: 'tools/call', params: { name: 'instant', arguments: {}, task: {} } });
            const created = await waitUntil(() => lines.find(line => line.id === 2), 'the CreateTaskResult');
            const { taskId } = (created.result as { task: { taskId: string } }).task;
            const statuses = () => lines.filter(line => line.method === 'notifications/tasks/status' && (line.params as { taskId?: string }).taskId === taskId);
            await promisesDrained();
            assert.deepEqual(statuses(), [], 'nothing about the task goes out with its CreateTaskResult, though it has ended');
            await clock.tick(ANNOUNCE_GAP_MS - 1);
            assert.deepEqual(statuses(), []);
            await clock.tick(1);
            const completed = await waitUntil(() => statuses().find(line => (line.params as { status: string }).status === 'completed'), 'the completed notification');
            assert.ok(lines.indexOf(completed) > lines.indexOf(created));
        } finally {
            input.end();
            await server.close();
        }
    });

    it('share one timer: a task answered while it is set waits for the tick after it, never less than the gap', async () => {
        const clock = new ManualClock();
        const announced: [string, number][] = [];
        const start = clock.now();
        const tick = new AnnounceTick(clock, ANNOUNCE_GAP_MS, taskId => announced.push([taskId, clock.now() - start]));
        tick.add('a');
        await clock.tick(2);
        tick.add('b');
        await clock.tick(2);
        tick.add('c');
        assert.equal(clock.pending, 1, 'one timer for the three tasks');
        await clock.tick(ANNOUNCE_GAP_MS - 4);
        assert.deepEqual(announced, [['a', ANNOUNCE_GAP_MS]]);
        assert.equal(clock.pending, 1, 'set again for the tasks answered meanwhile');
        await clock.tick(ANNOUNCE_GAP_MS - 1);
        assert.deepEqual(announced, [['a', ANNOUNCE_GAP_MS]], 'b and c have not had their gap yet');
        await clock.tick(1);
        assert.deepEqual(announced, [
            ['a', ANNOUNCE_GAP_MS],
            ['b', 2 * ANNOUNCE_GAP_MS],
            ['c', 2 * ANNOUNCE_GAP_MS],
        ]);
        assert.equal(clock.pending, 0, 'no timer once nothing waits');
        tick.add('d');
        tick.stop();
        assert.equal(clock.pending, 0, 'stop clears the timer');
        await clock.tick(2 * ANNOUNCE_GAP_MS);
        assert.equal(announced.length, 3, 'nothing announced after stop');
    });
});
