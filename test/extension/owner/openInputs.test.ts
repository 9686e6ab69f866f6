// The sidebar's owner connection answers a 2026-07-28 client's task's input requests: a real
// server process (dist/server.js: run `npm run build` first), a real 2026-07-28 client, the real
// OwnerConnection with a fake `vscode`; the user's answer is played by the input handlers.
import { fake } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ScopedLogger } from '../../../extension/logger';
import { openInputRequests } from '../../../extension/owner/openInputs';
import { OwnerConnection, type InputHandlers } from '../../../extension/owner/ownerConnection';
import { TaskModel } from '../../../extension/tasks/taskModel';
import { startHttpServer, textOf, type HttpServer } from '../../support/helpers.js';
import { Http2026Client } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';

void fake;
const TOKEN = 'open-inputs-client';
const OWNER = 'open-inputs-owner';
const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };


interface Asked {
    params: ElicitRequest['params'];
    taskId?: string;
    signal: AbortSignal;
    answer(result: ElicitResult): void;
}

/** Input handlers that hold each question until the test answers it, as a user would. */
function heldInput(): InputHandlers & { asked: Asked[] } {
    const asked: Asked[] = [];
    return {
        asked,
        elicit: (params, { signal, taskId }) => new Promise(resolve => asked.push({ params, taskId, signal, answer: resolve })),
        createMessage: () => Promise.reject(new Error('not asked in this test')),
    };
}

describe("the owner connection answers a 2026-07-28 task's inputRequests", () => {
    let server: HttpServer;
    let client: Http2026Client;
    let owner: OwnerConnection;
    let input: ReturnType<typeof heldInput>;

    before(async () => {
        server = await startHttpServer(['--token', TOKEN, '--owner-token', OWNER, '--bind', 'principal']);
        client = new Http2026Client(server.url, TOKEN);
        input = heldInput();
        owner = new OwnerConnection(new TaskModel(), quiet, input);
        owner.setEndpoint({ url: server.url, token: OWNER });
        await waitUntil(() => owner.connected, 'the owner connection');
    });

    after(async () => {
        owner?.dispose();
        await server?.stop();
    });

    it('puts the question to the user and completes the task with the answer', async () => {
        const created = await client.call('tools/call', { name: 'confirm_delete', arguments: { filename: 'a.md' } });
        const taskId = created.taskId as string;
        const asked = await waitUntil(() => input.asked.find(a => a.taskId === taskId), 'the question');
        assert.match(asked.params.message, /Delete 'a\.md'\?/);
        asked.answer({ action: 'accept', content: { confirm: 'delete' } });
        const done = await waitUntil(async () => {
            const task = await client.call('tasks/get', { taskId });
            return task.status === 'completed' ? task : undefined;
        }, 'the task to complete');
        assert.equal(textOf(done.result), "Confirmed: would delete 'a.md' (demo: nothing deleted)");
        assert.equal(input.asked.filter(a => a.taskId === taskId).length, 1, 'asked once');
    });

    it('withdraws the question when the client answers it first', async () => {
        const created = await client.call('tools/call', { name: 'confirm_delete', arguments: { filename: 'b.md' } });
        const taskId = created.taskId as string;
        const asked = await waitUntil(() => input.asked.find(a => a.taskId === taskId), 'the question');
        const [key] = Object.keys((await client.call('tasks/get', { taskId })).inputRequests as object);
        await client.call('tasks/update', { taskId, inputResponses: { [key!]: { action: 'decline' } } });
        await waitUntil(() => asked.signal.aborted, 'the owner’s question withdrawn');
        const task = await client.call('tasks/get', { taskId });
        assert.equal(textOf(task.result), 'Deletion cancelled');
    });

    it('reads only well-formed entries of the input-requests _meta', () => {
        assert.deepEqual(openInputRequests({ taskId: 't', status: 'input_required' }), []);
        const good = { method: 'elicitation/create', params: { message: 'm' } };
        assert.deepEqual(openInputRequests({ _meta: { 'dev.mcp-tasks/input-requests': { k1: good, k2: { method: 3 }, k3: null } } }), [['k1', good]]);
    });
});
