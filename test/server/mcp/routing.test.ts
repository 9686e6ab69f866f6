import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, startHttpServer, textOf, type Connected, type HttpServer } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';

const TOKEN = 'client-secret-routing';
const OWNER = 'owner-secret-routing';

/** Who answers a task's elicitation: its own client if it can, else the owner (the editor), else nobody. */
describe('input request routing', () => {
    let server: HttpServer;
    const open: Connected[] = [];

    before(async () => {
        server = await startHttpServer(['--token', TOKEN, '--owner-token', OWNER]);
    });
    after(async () => {
        await Promise.all(open.map(c => c.close()));
        await server.stop();
    });

    async function client(token: string, elicitation: boolean, answers: string[], name: string): Promise<Connected> {
        const c = await connect('http', server, { token, name, capabilities: elicitation ? { elicitation: { form: {} } } : {} });
        if (elicitation) {
            c.client.setRequestHandler(ElicitRequestSchema, async request => {
                answers.push(String(request.params.message));
                return { action: 'accept', content: { confirm: 'delete' } };
            });
        }
        open.push(c);
        return c;
    }

    async function confirmDelete(c: Connected, filename: string) {
        const { task } = await c.client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename }, task: {} } }, CreateTaskResultSchema);
        const result = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        return { taskId: task.taskId, text: textOf(result), status: (await c.client.experimental.tasks.getTask(task.taskId)).status, statusMessage: (await c.client.experimental.tasks.getTask(task.taskId)).statusMessage };
    }

    it('with no owner connected, a client without elicitation gets a clear failure', async () => {
        const mute = await client(TOKEN, false, [], 'mute-cli');
        const outcome = await confirmDelete(mute, 'nobody.txt');
        assert.equal(outcome.status, 'failed');
        assert.match(outcome.statusMessage ?? '', /^Nobody can answer this task.s elicitation request: the client that started this task did not declare the elicitation capability, and no editor is connected to answer for it/);
    });

    it('with an owner connected, the owner answers for a client that cannot', async () => {
        const ownerAnswers: string[] = [];
        await client(OWNER, true, ownerAnswers, 'editor');
        const mute = await client(TOKEN, false, [], 'mute-cli-2');
        const outcome = await confirmDelete(mute, 'owner-answers.txt');
        assert.equal(outcome.text, "Confirmed: would delete 'owner-answers.txt' (demo: nothing deleted)");
        await waitUntil(() => ownerAnswers.length === 1, 'the owner to be asked');
        assert.match(ownerAnswers[0]!, /owner-answers\.txt/);
    });

    it('a client that can answer gets its own request, not the owner', async () => {
        const ownerAnswers: string[] = [];
        await client(OWNER, true, ownerAnswers, 'editor-2');
        const mine: string[] = [];
        const able = await client(TOKEN, true, mine, 'able-cli');
        const before = ownerAnswers.length;
        const outcome = await confirmDelete(able, 'self.txt');
        assert.equal(outcome.text, "Confirmed: would delete 'self.txt' (demo: nothing deleted)");
        assert.equal(mine.length, 1);
        assert.equal(ownerAnswers.length, before, 'the owner was not asked');
    });
});
