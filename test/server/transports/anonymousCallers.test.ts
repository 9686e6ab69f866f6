/**
 * Without --token, every 2026-07-28 caller over HTTP is the same anonymous one (issue 30): so it
 * lists nothing, and a task is reached only by its id. Another process, asking as that same
 * anonymous caller, can neither list nor (not knowing the ids) cancel the first one's tasks; the
 * first goes on reaching its task by id. With tokens each caller still lists its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { httpServerPerSuite } from '../../support/helpers.js';
import { Http2026Client } from '../../support/rev2026.js';

const run = promisify(execFile);

/**
 * A second process on the same machine: lists tasks through list_tasks with a conformant
 * 2026-07-28 POST, then cancels every task id the listing shows. Prints what it saw and did.
 */
const SNOOPER = `
const url = process.argv[1];
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
let id = 0;
async function post(method, params, name) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
    if (name) headers['mcp-name'] = name;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }) });
    return JSON.parse(await response.text());
}
const listed = await post('tools/call', { name: 'list_tasks', arguments: {} }, 'list_tasks');
const ids = (listed.result?.structuredContent?.tasks ?? []).map(task => task.task_id);
const cancelled = [];
for (const taskId of ids) {
    const answer = await post('tasks/cancel', { taskId }, taskId);
    if (answer.result) cancelled.push(taskId);
}
console.log(JSON.stringify({ listError: listed.result?.isError === true ? listed.result.content[0].text : undefined, ids, cancelled }));
`;

async function snoop(url: string): Promise<{ listError?: string; ids: string[]; cancelled: string[] }> {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', SNOOPER, url]);
    return JSON.parse(stdout) as { listError?: string; ids: string[]; cancelled: string[] };
}

describe('anonymous 2026-07-28 callers over HTTP (no --token)', () => {
    const server = httpServerPerSuite();

    it("another process cannot list or cancel the first one's tasks; the first reaches its own by id", async () => {
        const first = new Http2026Client(server.url);
        const started = (await first.call('tools/call', { name: 'start_slow_compute', arguments: { seconds: 60, label: 'mine' } })) as { structuredContent: { task_id: string } };
        const background = started.structuredContent.task_id;
        const created = (await first.call('tools/call', { name: 'slow_compute', arguments: { seconds: 60, label: 'mine too' } })) as { resultType: string; taskId: string };
        assert.equal(created.resultType, 'task');
        const augmented = created.taskId;

        const seen = await snoop(server.url);
        assert.deepEqual(seen.ids, [], 'the other process saw no task id');
        assert.deepEqual(seen.cancelled, []);
        assert.match(seen.listError ?? '', /without --token, so every caller over HTTP is the same anonymous one/);

        // The id is the handle: the first caller (or anyone it gives the id to) still reaches both tasks.
        for (const taskId of [background, augmented]) {
            const task = await first.call('tasks/get', { taskId });
            assert.equal(task.status, 'working', `${taskId} still runs`);
            await first.call('tasks/cancel', { taskId });
            assert.equal((await first.call('tasks/get', { taskId })).status, 'cancelled');
        }
    });
});

describe('2026-07-28 callers over HTTP with tokens', () => {
    const server = httpServerPerSuite(['--token', 'alice-token', '--token', 'bob-token']);

    it('each lists its own tasks, and only those', async () => {
        const alice = new Http2026Client(server.url, 'alice-token');
        const bob = new Http2026Client(server.url, 'bob-token');
        const started = (await alice.call('tools/call', { name: 'start_slow_compute', arguments: { seconds: 60 } })) as { structuredContent: { task_id: string } };
        const list = async (client: Http2026Client) =>
            ((await client.call('tools/call', { name: 'list_tasks', arguments: {} })) as { structuredContent: { tasks: { task_id: string }[] } }).structuredContent.tasks.map(task => task.task_id);
        assert.deepEqual(await list(alice), [started.structuredContent.task_id]);
        assert.deepEqual(await list(bob), []);
        await alice.call('tasks/cancel', { taskId: started.structuredContent.task_id });
    });
});
