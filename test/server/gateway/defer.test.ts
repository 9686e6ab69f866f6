import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { textOf } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, wrapEverything, wrapMisbehaving, type Gateway } from './gatewayHelpers.js';

// --defer-after: a client that never sends `task` (Claude Code, Copilot CLI, Cursor) gets an
// answer before its own timeout, and the work goes on as a task it can follow with get_task.

interface Deferred {
    taskId: string;
    status: string;
    next: string;
}

/** The task a deferred answer names in its `_meta` (every deferral answer has it; a tool with an output schema has no structuredContent). */
function deferredTaskId(answer: { _meta?: Record<string, unknown> }): string {
    return (answer._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
}

async function waitForEnd(gateway: Gateway, taskId: string) {
    return waitUntil(async () => {
        const got = await gateway.client.callTool({ name: 'get_task', arguments: { task_id: taskId, wait_seconds: 5 } });
        return ['completed', 'failed', 'cancelled'].includes((got.structuredContent as { status: string }).status) ? got : undefined;
    }, `task ${taskId} to end`);
}

describe('--defer-after in front of server-everything', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(['--defer-after', '300ms', ...wrapEverything()]);
    });

    after(() => gateway?.close());

    it('answers a plain call still running after DUR with the task that continues it, in text and structuredContent', async () => {
        const answer = await gateway.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } });
        assert.notEqual(answer.isError, true);
        const deferred = answer.structuredContent as unknown as Deferred;
        assert.equal(deferred.status, 'working');
        assert.match(deferred.next, new RegExp(`continues in the background as task ${deferred.taskId}`));
        assert.match(deferred.next, /get_task/);
        assert.match(deferred.next, /cancel_task/);
        assert.doesNotMatch(deferred.next, /read_output/, 'a wrapped tool keeps no output log');
        assert.equal(textOf(answer), deferred.next);
        assert.equal(deferredTaskId(answer), deferred.taskId);
        const done = await waitForEnd(gateway, deferred.taskId);
        assert.equal((done.structuredContent as { status: string }).status, 'completed');
        assert.match(textOf(done), /Long running operation completed\. Duration: 2 seconds/);
    });

    it('answers a call that ends before DUR as usual', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'quick' } })), 'Echo: quick');
    });
});

describe('--defer-after for our own tools, command tools, and a host that cancels first', { timeout: 120_000 }, () => {
    let own: Gateway;
    let wrapped: Gateway;
    let dir: string;

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'defer-commands-'));
        const file = join(dir, 'commands.json');
        const sleeper = resolve(__dirname, '../fixtures/commands/sleep.js');
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'nap', description: 'Runs until stopped.', command: [process.execPath, sleeper] }] }));
        [own, wrapped] = await Promise.all([stdioGateway(['--defer-after', '300ms', '--commands', file]), stdioGateway(['--defer-after', '60s', ...wrapMisbehaving()])]);
    });

    after(async () => {
        await own?.close();
        await wrapped?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('defers a command tool, names read_output, which reads its log, and cancel_task stops its process', async () => {
        // Listed first, as hosts do: the SDK client then checks a successful result against the command's output schema.
        await own.client.listTools();
        const answer = await own.client.callTool({ name: 'nap', arguments: {} });
        // A success, not an error: the SDK client checked it against the listed output schema, which admits the deferral's answer.
        assert.equal(answer.isError, undefined);
        const taskId = deferredTaskId(answer);
        const next = textOf(answer);
        assert.deepEqual(answer.structuredContent, { taskId, status: 'working', next });
        assert.match(next, new RegExp(`^nap is still running; it continues in the background as task ${taskId}\\.`));
        assert.match(next, new RegExp(`read_output with task_id "${taskId}"`));
        await waitUntil(async () => /ready \d+/.test(textOf(await own.client.callTool({ name: 'read_output', arguments: { task_id: taskId } }))), 'the deferred command log read by its task');
        await own.client.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
        assert.equal(((await waitForEnd(own, taskId)).structuredContent as { status: string }).status, 'cancelled');
    });

    it('defers a demo tool, and cancel_task stops the work', async () => {
        await own.client.listTools();
        const answer = await own.client.callTool({ name: 'slow_compute', arguments: { seconds: 60, label: 'deferred' } });
        const taskId = deferredTaskId(answer);
        assert.match(textOf(answer), new RegExp(`continues in the background as task ${taskId}`));
        const cancelled = await own.client.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
        assert.equal((cancelled.structuredContent as { status: string }).status, 'cancelled');
        assert.equal(((await waitForEnd(own, taskId)).structuredContent as { status: string }).status, 'cancelled');
    });

    it('a host that cancels before DUR cancels the work, and no task is left', async () => {
        await wrapped.log.waitFor(/\[misbehaving\] connected/);
        const controller = new AbortController();
        const call = wrapped.client.callTool({ name: 'hang', arguments: {} }, undefined, { signal: controller.signal });
        await wrapped.log.waitFor(/\[misbehaving\] hang: started/);
        controller.abort(new Error('host gave up'));
        await assert.rejects(call, /host gave up/);
        await wrapped.log.waitFor(/\[misbehaving\] hang: cancel received/);
        // The gateway's own line for it (the real VS Code suite reads it for server-everything, which logs nothing).
        await wrapped.log.waitFor(/\[misbehaving\] hang: cancelled; sent the wrapped server notifications\/cancelled/);
        const listed = await wrapped.client.callTool({ name: 'list_tasks', arguments: {} });
        assert.deepEqual((listed.structuredContent as { tasks: unknown[] }).tasks, []);
    });
});
