import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { INPUT_REQUESTS_META_KEY, TASK_INFO_META_KEY } from '../../../server/src/contract.js';
import { connect, startHttpServer, textOf, type Connected, type HttpServer } from '../../support/helpers.js';
import { Http2026Client } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';

// The owner (the editor's 2025-11-25 session) sees a 2026-07-28 client's task's open inputRequests
// in its tasks/get and answers them with tasks/update, as the client itself could; no other
// 2025-11-25 client gets either.

const TOKEN = 'owner-inputs-client';
const OWNER = 'owner-inputs-owner';
const Loose = z.object({}).passthrough();

let server: HttpServer;
let client: Http2026Client;
let owner: Connected;
let other: Connected;

async function ownerGet(taskId: string): Promise<Record<string, unknown>> {
    return owner.client.request({ method: 'tasks/get', params: { taskId } }, Loose);
}

describe("the owner answers a 2026-07-28 task's input requests", () => {
    before(async () => {
        server = await startHttpServer(['--token', TOKEN, '--owner-token', OWNER, '--bind', 'principal']);
        client = new Http2026Client(server.url, TOKEN);
        owner = await connect('http', server, { token: OWNER, name: 'MCP Tasks for VS Code' });
        other = await connect('http', server, { token: TOKEN });
    });

    after(async () => {
        await owner?.close();
        await other?.close();
        await server?.stop();
    });

    it('lists the open request to the owner, takes its answer, and the task completes with it', async () => {
        const created = await client.call('tools/call', { name: 'confirm_delete', arguments: { filename: 'draft.md' } });
        assert.equal(created.resultType, 'task');
        const taskId = created.taskId as string;
        const seen = await waitUntil(
            async () => {
                const task = await ownerGet(taskId);
                return (task._meta as Record<string, unknown> | undefined)?.[INPUT_REQUESTS_META_KEY] as Record<string, { method: string; params: Record<string, unknown> }> | undefined;
            },
            'the owner to see the open input request',
            { everyMs: 50 },
        );
        const [key, request] = Object.entries(seen)[0]!;
        assert.equal(request.method, 'elicitation/create');
        assert.match(String(request.params.message), /Delete 'draft\.md'\?/);
        // The client's own view lists the same request under the same key.
        const clientView = await client.call('tasks/get', { taskId });
        assert.deepEqual(Object.keys(clientView.inputRequests as object), [key]);
        // A 2025-11-25 session of the same client sees the spec's Task only.
        const plain = await other.client.request({ method: 'tasks/get', params: { taskId } }, Loose);
        assert.equal((plain._meta as Record<string, unknown> | undefined)?.[INPUT_REQUESTS_META_KEY], undefined);
        assert.equal(plain.status, 'input_required');

        assert.deepEqual(await owner.client.request({ method: 'tasks/update', params: { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: 'delete' } } } } }, Loose), {});
        const done = await waitUntil(
            async () => {
                const task = await client.call('tasks/get', { taskId });
                return task.status === 'completed' ? task : undefined;
            },
            'the task to complete',
            { everyMs: 50 },
        );
        assert.equal(textOf(done.result), "Confirmed: would delete 'draft.md' (demo: nothing deleted)");
        const after = await ownerGet(taskId);
        assert.equal((after._meta as Record<string, unknown> | undefined)?.[INPUT_REQUESTS_META_KEY], undefined, 'nothing open once answered');
    });

    it("tells the owner which tasks a chat started, where VS Code asks their questions (the call's vscode.conversationId)", async () => {
        const start = async (meta: Record<string, unknown>) => {
            const params = { name: 'slow_compute', arguments: { seconds: 0, label: 'chat' }, task: {}, _meta: meta };
            return ((await other.client.request({ method: 'tools/call', params }, Loose)).task as { taskId: string }).taskId;
        };
        const infoOf = async (taskId: string) => ((await ownerGet(taskId))._meta as Record<string, Record<string, unknown>>)[TASK_INFO_META_KEY]!;
        const fromChat = await start({ 'vscode.conversationId': 'conversation-1', progressToken: 'chat-1' });
        assert.equal((await infoOf(fromChat)).chat, true);
        for (const meta of [{}, { 'vscode.conversationId': '' }, { 'vscode.conversationId': 7 }]) {
            assert.equal((await infoOf(await start(meta))).chat, undefined, JSON.stringify(meta));
        }
        // Only the owner's view says so: the client gets the spec's Task.
        const own = await other.client.request({ method: 'tasks/get', params: { taskId: fromChat } }, Loose);
        assert.equal(own._meta, undefined);
    });

    it('gives other 2025-11-25 clients neither the requests nor tasks/update', async () => {
        await assert.rejects(other.client.request({ method: 'tasks/update', params: { taskId: 'x', inputResponses: {} } }, Loose), /-32601|Method not found/);
    });

    it('refuses an owner tasks/update without inputResponses, and for an unknown task', async () => {
        await assert.rejects(owner.client.request({ method: 'tasks/update', params: { taskId: 'nope', inputResponses: {} } }, Loose), /Task not found/);
        const created = await client.call('tools/call', { name: 'confirm_delete', arguments: { filename: 'keep.md' } });
        await assert.rejects(owner.client.request({ method: 'tasks/update', params: { taskId: created.taskId } }, Loose), /inputResponses must be an object/);
        await client.call('tasks/cancel', { taskId: created.taskId });
    });
});
