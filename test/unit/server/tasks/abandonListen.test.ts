/**
 * --abandon-after and 2026-07-28 clients: an open `subscriptions/listen` stream that names a task
 * is its client following it (the task is not abandoned while the stream is open, and is a window
 * after it closes), and `tasks/get` polls keep it like a 2025-11-25 client's. The real server core
 * and the real stateless handlers, on a virtual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/util/log.js';

import { TASKS_EXTENSION } from '../../../../server/src/mcp/rev2026/envelope.js';
import { serve2026 } from '../../../../server/src/mcp/rev2026/serve.js';
import type { JsonRpcMessage } from '../../../../server/src/rpc/messages.js';
import { RequestAbort } from '../../../../server/src/rpc/requestAbort.js';
import type { Transport } from '../../../../server/src/rpc/transport.js';
import { TasksServer } from '../../../../server/src/server.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { nap } from '../../../support/napTool.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, PROTOCOL_2026 } from '../../../../server/src/contract.js';

const ABANDON_MS = 30_000;
const HOUR = 3_600_000;
const CLIENT = { clientKey: 'principal:a', isOwner: false };
const META = { [META_PROTOCOL_VERSION]: PROTOCOL_2026, [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION]: {} } } };

function setup() {
    const clock = new ManualClock();
    const server = new TasksServer({ tools: [nap], clock, abandonAfterMs: ABANDON_MS, pollIntervalMs: 1000, logger: createLogger('error', () => undefined) });
    let nextId = 1;
    const sent: JsonRpcMessage[] = [];
    const stream: Transport = { send: message => (sent.push(message), true), close: () => undefined };
    const request = (method: string, params: Record<string, unknown>, abort = new RequestAbort()) =>
        Promise.resolve(serve2026(server.services, CLIENT, { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } }, stream, abort));
    const start = async () => {
        const created = await request('tools/call', { name: 'nap', arguments: { ms: HOUR } });
        assert.equal(created.resultType, 'task');
        return created.taskId as string;
    };
    const status = async (taskId: string) => (await server.runtime.store.get(taskId))?.status;
    return { clock, server, request, start, status, sent };
}

describe('abandoned 2026-07-28 tasks (virtual clock)', () => {
    it('cancels a task whose client neither polls nor listens', async () => {
        const { clock, server, start, status } = setup();
        const taskId = await start();
        await clock.tick(ABANDON_MS + ABANDON_MS / 10 + 1000);
        await waitUntil(async () => ((await status(taskId)) === 'cancelled' ? true : undefined), 'the unfollowed task cancelled');
        await server.close();
    });

    it('keeps a task while a subscriptions/listen stream names it, and cancels it a window after the stream closes', async () => {
        const { clock, server, request, start, status, sent } = setup();
        const taskId = await start();
        const other = await start();
        const abort = new RequestAbort();
        const listening = request('subscriptions/listen', { notifications: { taskIds: [taskId] } }, abort);
        await waitUntil(async () => (sent.some(m => 'method' in m && m.method === 'notifications/tasks') ? true : undefined), 'the first notifications/tasks');
        await clock.tick(10 * ABANDON_MS);
        assert.equal(await status(taskId), 'working', 'followed through the open stream');
        assert.equal(await status(other), 'cancelled', 'a task the stream does not name is not followed by it');
        abort.abort(new Error('client closed the stream'));
        assert.equal((await listening).resultType, 'complete');
        await clock.tick(ABANDON_MS - 1000);
        assert.equal(await status(taskId), 'working', 'a full window after the stream closed');
        await clock.tick(ABANDON_MS / 10 + 2000);
        await waitUntil(async () => ((await status(taskId)) === 'cancelled' ? true : undefined), 'cancelled once the stream is gone');
        await server.close();
    });

    it('keeps a task its client polls with tasks/get', async () => {
        const { clock, server, request, start, status } = setup();
        const taskId = await start();
        for (let i = 0; i < 120; i++) {
            await clock.tick(1000);
            const task = await request('tasks/get', { taskId });
            assert.equal(task.status, 'working');
        }
        assert.equal(await status(taskId), 'working', 'two minutes of polling keep it');
        await server.close();
    });
});
