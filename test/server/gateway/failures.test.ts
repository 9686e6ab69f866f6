import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { pollUntilTerminal } from '../../support/messageTap.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, wrapMisbehaving, type Gateway } from './gatewayHelpers.js';

// The gateway in front of a downstream that misbehaves on purpose (a real MCP server process):
// each misbehaviour has a defined outcome for the task and the host, and the gateway goes on.

type Json = Record<string, unknown>;

describe('the gateway in front of a misbehaving downstream', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    const progress: Json[] = [];

    before(async () => {
        gateway = await stdioGateway(wrapMisbehaving(), { elicitation: { form: {} } });
        gateway.client.setNotificationHandler(ProgressNotificationSchema, notification => void progress.push(notification.params));
        gateway.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { word: 'gateway' } }));
        await gateway.log.waitFor(/\[misbehaving\] misbehaving: ready/);
    });

    after(() => gateway?.close());

    it('logs the downstream stderr prefixed with its name', async () => {
        await gateway.log.waitFor(/INFO {2}\[misbehaving\] connected \(misbehaving 1\.0\.0, \d+ tools\)/);
    });

    it('a cancel ends the task cancelled at once although the downstream ignores it; the downstream was told', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'hang', arguments: {}, task: {} } }, CreateTaskResultSchema);
        await gateway.log.waitFor(/\[misbehaving\] hang: started/);
        const cancelled = await gateway.client.experimental.tasks.cancelTask(task.taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.equal((await gateway.client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
        // notifications/cancelled reached the downstream, which logged it.
        await gateway.log.waitFor(/\[misbehaving\] hang: cancel received/);
        // The result says what is known of the server's side, and no more.
        const result = await gateway.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.match(textOf(result), /^Task cancelled: Cancelled by the client\n\nThe cancel was sent to the wrapped server "misbehaving"\. MCP has no answer to a cancelled request, so nothing confirms that hang stopped there/);
    });

    it('cancel_task tells the model that nothing confirms the wrapped server stopped', async () => {
        const started = await gateway.client.callTool({ name: 'start_hang', arguments: {} });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        await waitForCount(gateway, /\[misbehaving\] hang: started/, gateway.log.lines.filter(line => /hang: started/.test(line)).length);
        const answer = await gateway.client.callTool({ name: 'cancel_task', arguments: { task_id: taskId } });
        assert.match(textOf(answer), new RegExp(`^Task ${taskId} \\(hang\\) is cancelled\\. The cancel was sent to the wrapped server "misbehaving"\\. MCP has no answer to a cancelled request, so nothing confirms that hang stopped there`));
        assert.match((answer.structuredContent as { stop_note?: string }).stop_note ?? '', /nothing confirms that hang stopped/);
    });

    it('a plain call the host cancels sends the cancellation downstream too', async () => {
        const count = (pattern: RegExp) => gateway.log.lines.filter(line => pattern.test(line)).length;
        const [started, seen] = [count(/hang: started/), count(/hang: cancel received/)];
        const controller = new AbortController();
        const call = gateway.client.callTool({ name: 'hang', arguments: {} }, undefined, { signal: controller.signal });
        // This call's own start (an earlier test's hang logged one too).
        await waitForCount(gateway, /\[misbehaving\] hang: started/, started + 1);
        controller.abort(new Error('host gave up'));
        await assert.rejects(call, /host gave up/);
        await waitForCount(gateway, /hang: cancel received/, seen + 1);
    });

    it('floods of progress reach the host coalesced, in order, and the call completes', async () => {
        const result = await gateway.client.request({ method: 'tools/call', params: { name: 'flood', arguments: { count: 20000 }, _meta: { progressToken: 'flood' } } }, CallToolResultSchema);
        assert.equal(textOf(result), 'flooded 20000');
        const values = progress.filter(p => p.progressToken === 'flood').map(p => p.progress as number);
        assert.ok(values.length > 0 && values.length < 20000, `${values.length} progress notifications for 20000`);
        assert.deepEqual([...values].sort((a, b) => a - b), values);
    });

    it('a frame that is not JSON-RPC is logged and skipped: the call still gets its answer', async () => {
        const result = await gateway.client.callTool({ name: 'garbage', arguments: {} });
        assert.equal(textOf(result), 'answered after garbage');
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'Echo: still here');
    });

    it('routes a plain call question to the host and its answer back', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'ask', arguments: {} })), 'answer: accept gateway');
    });

    it('a downstream that dies mid-call fails the running task saying so, is restarted, and serves again', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'crash', arguments: {}, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'failed');
        const failed = await gateway.client.experimental.tasks.getTask(task.taskId);
        assert.match(failed.statusMessage ?? '', /The wrapped MCP server "misbehaving" stopped while crash was running \(its process exited\); it is being restarted/);
        await gateway.log.waitFor(/WARN {2}\[misbehaving\] stopped: its process exited/);
        await gateway.log.waitFor(/\[misbehaving\] restarting in 1 s \(attempt 1\)/);
        await waitForCount(gateway, /\[misbehaving\] connected/, 2);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'after restart' } })), 'Echo: after restart');
    });
});

async function waitForCount(gateway: Gateway, pattern: RegExp, count: number): Promise<void> {
    await waitUntil(() => gateway.log.lines.filter(line => pattern.test(line)).length >= count, `${count} log lines matching ${pattern}`, { on: gateway.log.changes });
}
