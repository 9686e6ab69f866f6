import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, wrapMisbehaving, type Gateway } from './gatewayHelpers.js';

// restartOnIgnoredCancel (--wrap-cancel-restart): a cancelled call the wrapped server ignores is
// stopped by restarting the server, which fails the other calls running there, saying why.
// The downstream is a real process (fixtures/gateway/misbehaving.mjs, whose hang ignores cancels).

const HANG_STARTED = /\[misbehaving\] hang: started in process (\d+)/;

/** Whether a process with this id runs (signal 0 checks without signalling). */
function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** The process id of the n-th hang call the downstream logged (1-based). */
async function nthHang(gateway: Gateway, n: number): Promise<number> {
    const lines = await waitUntil(
        () => {
            const found = gateway.log.lines.filter(line => HANG_STARTED.test(line));
            return found.length >= n ? found : undefined;
        },
        `${n} hang starts`,
        { on: gateway.log.changes },
    );
    return Number(HANG_STARTED.exec(lines[n - 1]!)![1]);
}

describe('with --wrap-cancel-restart, a cancelled call the server ignores is stopped by restarting it', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(['--wrap-cancel-restart', '1', ...wrapMisbehaving()]);
        await gateway.log.waitFor(/\[misbehaving\] connected/);
    });

    after(() => gateway?.close());

    it('ends the call, its process is gone, another running call fails saying why, and the server serves again', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'hang', arguments: {}, task: {} } }, CreateTaskResultSchema);
        const pid = await nthHang(gateway, 1);
        const other = gateway.client.callTool({ name: 'hang', arguments: {} });
        assert.equal(await nthHang(gateway, 2), pid);
        await gateway.client.experimental.tasks.cancelTask(task.taskId);
        await gateway.log.waitFor(/\[misbehaving\] hang: cancel received, ignoring it/);

        const result = await gateway.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.match(textOf(result), /^Task cancelled: Cancelled by the client\n\nThe wrapped server "misbehaving" did not end hang within 1 s of the cancel, so the gateway restarted it to stop the call\./);
        await gateway.log.waitFor(/WARN {2}\[misbehaving\] hang did not end within 1 s of its cancel: restarting the server to stop it/);
        await waitUntil(() => !alive(pid), `process ${pid} gone`);

        const failed = await other;
        assert.equal(failed.isError, true);
        assert.match(
            textOf(failed as { content: unknown[] }),
            /^The wrapped MCP server "misbehaving" stopped while hang was running \(the gateway restarted it to stop a call of hang that did not end within 1 s of its cancel\); it is being restarted\./,
        );

        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'after the restart' } })), 'Echo: after the restart');
        await waitUntil(() => gateway.log.lines.filter(line => /\[misbehaving\] connected/.test(line)).length >= 2, 'the server connected again', { on: gateway.log.changes });
    });

    it('a cancelled call the server answers in time ends without a restart', async () => {
        const connected = gateway.log.lines.filter(line => /\[misbehaving\] connected/.test(line)).length;
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'answer_cancel', arguments: {}, task: {} } }, CreateTaskResultSchema);
        await gateway.log.waitFor(/\[misbehaving\] answer_cancel: started/);
        await gateway.client.experimental.tasks.cancelTask(task.taskId);
        const result = await gateway.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.match(textOf(result), /The cancel was sent to the wrapped server "misbehaving", and it answered that call within 1 s: answer_cancel ended there\./);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'same server' } })), 'Echo: same server');
        assert.equal(gateway.log.lines.filter(line => /\[misbehaving\] connected/.test(line)).length, connected);
    });
});

describe('without the option, a server that ignores a cancel keeps running the call', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(wrapMisbehaving());
        await gateway.log.waitFor(/\[misbehaving\] connected/);
    });

    after(() => gateway?.close());

    it('says nothing confirms the stop, and the server and its other calls go on', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'hang', arguments: {}, task: {} } }, CreateTaskResultSchema);
        const pid = await nthHang(gateway, 1);
        await gateway.client.experimental.tasks.cancelTask(task.taskId);
        const result = await gateway.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.match(textOf(result), /nothing confirms that hang stopped there/);
        await gateway.log.waitFor(/\[misbehaving\] hang: cancel received, ignoring it/);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'still the same server' } })), 'Echo: still the same server');
        assert.ok(alive(pid), 'the server process still runs');
        assert.ok(!gateway.log.lines.some(line => /restarting/.test(line)), 'no restart');
    });

    it("passes a wrapped server's JSON-RPC error on with its code, message and data", async () => {
        const err = await gateway.client.callTool({ name: 'refuse', arguments: {} }).then(
            () => assert.fail('refuse answered'),
            (error: unknown) => error,
        );
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32021);
        assert.match(err.message, /This tool needs the tasks extension/);
        assert.deepEqual(err.data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    });
});
