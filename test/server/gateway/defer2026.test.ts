import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { textOf, TRANSPORTS, type LogTail } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { v2Gateway, wrapEverything, type V2Client } from './gatewayHelpers.js';

// --defer-after for a 2026-07-28 client that does not declare the tasks extension (every plain
// tools/call of such a client, as most hosts send): the official client (@modelcontextprotocol/client
// 2.x, pinned to 2026-07-28) gets the ordinary result that names the task, over stdio and HTTP, and
// follows the work with get_task, read_output and cancel_task. The tools never end before the
// defer time (a 3 s operation, a command that runs until stopped), so nothing here races the clock.

type Json = Record<string, unknown>;

interface Deferred {
    taskId: string;
    status: string;
    next: string;
}

function commandsFile(): string {
    const dir = mkdtempSync(join(tmpdir(), 'defer-stateless-'));
    const file = join(dir, 'commands.json');
    const sleeper = resolve(__dirname, '../fixtures/commands/sleep.js');
    writeFileSync(file, JSON.stringify({ tools: [{ name: 'nap', description: 'Says it is ready, then runs until stopped.', command: [process.execPath, sleeper] }] }));
    return file;
}

for (const kind of TRANSPORTS) {
    describe(`--defer-after for a 2026-07-28 client without the tasks extension (${kind})`, { timeout: 120_000 }, () => {
        let client: V2Client;
        let log: LogTail;
        let close: () => Promise<void>;
        let file: string;

        before(async () => {
            file = commandsFile();
            ({ client, log, close } = await v2Gateway(kind, ['--defer-after', '300ms', '--commands', file, ...wrapEverything()]));
            assert.equal(client.getProtocolEra(), 'modern');
        });

        after(async () => {
            await close?.();
            rmSync(dirname(file), { recursive: true, force: true });
        });

        const call = (name: string, args: Json) => client.callTool({ name, arguments: args }) as Promise<Json>;
        const status = async (taskId: string) => ((await call('get_task', { task_id: taskId })).structuredContent as { status: string }).status;

        it('answers a wrapped tool still running after DUR with the task that continues it; get_task follows it to its result', async () => {
            const answer = await call('trigger-long-running-operation', { duration: 3, steps: 3 });
            assert.notEqual(answer.isError, true);
            const deferred = answer.structuredContent as unknown as Deferred;
            assert.equal(deferred.status, 'working');
            assert.match(deferred.next, new RegExp(`continues in the background as task ${deferred.taskId}`));
            assert.match(deferred.next, /get_task.*cancel_task/);
            assert.doesNotMatch(deferred.next, /read_output/, 'a wrapped tool keeps no output log');
            assert.equal(textOf(answer), deferred.next);
            await log.waitFor(/\[2026-07-28\] tools\/call trigger-long-running-operation still running after the defer time/);
            const done = await waitUntil(async () => {
                const got = await call('get_task', { task_id: deferred.taskId, wait_seconds: 5 });
                return (got.structuredContent as { status: string }).status === 'completed' ? got : undefined;
            }, 'the deferred task to complete');
            assert.match(textOf(done), /Long running operation completed\. Duration: 3 seconds/);
        });

        it('a deferred command names read_output, which reads its log while it runs; cancel_task stops it', async () => {
            // Listed first, as hosts do: the client then checks a successful result against the command's output schema.
            assert.ok((await client.listTools()).tools.find(tool => tool.name === 'nap')?.outputSchema);
            const answer = await call('nap', {});
            // A success, not an error: the client checks it against the listed output schema, which admits the deferral's answer.
            assert.notEqual(answer.isError, true);
            const taskId = ((answer._meta as Json)['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
            const next = textOf(answer);
            assert.deepEqual(answer.structuredContent, { taskId, status: 'working', next });
            assert.match(next, new RegExp(`^nap is still running; it continues in the background as task ${taskId}\\.`));
            assert.match(next, new RegExp(`read_output with task_id "${taskId}"`));
            const read = await waitUntil(async () => {
                const got = textOf(await call('read_output', { task_id: taskId }));
                return /ready \d+/.test(got) ? got : undefined;
            }, 'the command to say it is ready');
            assert.match(read, new RegExp(`^Task ${taskId} \\(nap, still running\\)`));
            await call('cancel_task', { task_id: taskId });
            await waitUntil(async () => (await status(taskId)) === 'cancelled', 'the deferred command to be cancelled');
        });

        it('a call that ends before DUR answers as usual', async () => {
            assert.equal(textOf(await call('echo', { message: 'quick' })), 'Echo: quick');
        });
    });
}
