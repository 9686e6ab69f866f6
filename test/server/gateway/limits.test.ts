import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LogTail, SERVER_JS, textOf } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, type Gateway } from './gatewayHelpers.js';
import { rssOf } from '../../support/lightRpc.js';

// The gateway in front of a server that floods (test/server/fixtures/gateway/flooding.mjs, a real
// process): its log messages and list changes reach our clients bounded, a host that stops
// reading does not make the gateway grow without end, and a line over the limit is said as such.

const FLOODING = resolve(__dirname, '../fixtures/gateway/flooding.mjs');
const wrapFlooding = () => ['--wrap', '--', process.execPath, FLOODING];
const MB = 1024 * 1024;

/** How many times the fixture says it answered tools/list. */
function listsAnswered(gateway: Gateway): number {
    return gateway.log.lines.filter(line => /\[flooding\] tools\/list: \d+/.test(line)).length;
}

describe('the gateway bounds what a flooding wrapped server sends', { timeout: 180_000 }, () => {
    const gateways: Gateway[] = [];
    after(() => Promise.all(gateways.map(gateway => gateway.close())));

    async function open(): Promise<Gateway> {
        const gateway = await stdioGateway(wrapFlooding());
        gateways.push(gateway);
        await gateway.log.waitFor(/\[flooding\] connected \(flooding 1\.0\.0, 3 tools\)/);
        // Its stderr is relayed apart from its answers: the first listing's line may come after "connected".
        await gateway.log.waitFor(/\[flooding\] tools\/list: 1$/);
        return gateway;
    }

    it('1000 tools/list_changed in a burst become at most two listings and two list changes for the host', async () => {
        const gateway = await open();
        // A round trip first: the list change of its first start, sent on stdout before this answer, is not counted.
        await gateway.client.listTools();
        let changes = 0;
        gateway.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
        const before = listsAnswered(gateway);
        const result = await gateway.client.callTool({ name: 'burst_list_changed', arguments: { count: 1000 } });
        assert.equal(textOf(result), 'sent 1000');
        await waitUntil(() => listsAnswered(gateway) >= before + 1 && changes >= 1, 'the gateway to list the tools again', { on: gateway.log.changes, everyMs: 50 });
        // Another round trip through gateway and server: whatever the burst set off has been sent by now.
        await gateway.client.callTool({ name: 'burst_list_changed', arguments: { count: 0 } });
        await gateway.client.listTools();
        assert.ok(listsAnswered(gateway) - before <= 2, `the server answered ${listsAnswered(gateway) - before} tools/list for one burst`);
        assert.ok(changes >= 1 && changes <= 2, `the host got ${changes} tools/list_changed for one burst`);
    });

    it('a flood of log messages reaches the host as at most 20 a second, and one line says how many were left out', async () => {
        const gateway = await open();
        const messages: Record<string, unknown>[] = [];
        gateway.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => void messages.push(notification.params));
        await gateway.client.callTool({ name: 'flood_logs', arguments: { seconds: 2 } });
        const done = await gateway.log.waitFor(/\[flooding\] flood: done, sent \d+/);
        const sent = Number(/sent (\d+)/.exec(done)?.[1]);
        const leftOut = await waitUntil(() => messages.find(message => /left out/.test(String(message.data))), 'the line saying what was left out', { everyMs: 50 });
        assert.match(String(leftOut.data), /^The wrapped server "flooding" sent \d+ more log message\(s\) in 1 s than the 20 passed on; they were left out\.$/);
        const passed = messages.filter(message => message.logger === 'flooding');
        assert.ok(passed.length >= 20, `only ${passed.length} log messages passed`);
        assert.ok(sent > 10 * passed.length, `the server sent ${sent}, ${passed.length} passed: nothing was held back`);
        // Those that pass come whole and in order.
        assert.match(String(passed[0]?.data), /^line 1 x{4000}$/);
    });

    it('a line over 10 MiB is said as such to the call it took down, not as an exit', async () => {
        const gateway = await open();
        const result = await gateway.client.callTool({ name: 'huge_line', arguments: {} });
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^The wrapped MCP server "flooding" stopped while huge_line was running \(it wrote a line longer than 10 MiB, the most one message may be, so its connection was closed\); it is being restarted\./);
        await gateway.log.waitFor(/WARN {2}\[flooding\] stopped: it wrote a line longer than 10 MiB/);
    });

    it('a host that stops reading while the server floods log messages: the gateway grows by at most 100 MB', async () => {
        const proc = spawn(process.execPath, [SERVER_JS, '--stdio', ...wrapFlooding()], { stdio: ['pipe', 'pipe', 'pipe'] });
        const log = new LogTail();
        log.attach(proc.stderr);
        try {
            let read = '';
            const answered = (id: number) =>
                new Promise<void>(resolveAnswer => {
                    const onData = (chunk: Buffer) => {
                        read += chunk.toString('utf8');
                        if (read.includes(`"id":${id},`) || read.includes(`"id":${id}}`)) {
                            proc.stdout.removeListener('data', onData);
                            resolveAnswer();
                        }
                    };
                    proc.stdout.on('data', onData);
                });
            const write = (message: Record<string, unknown>) => proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
            write({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stops-reading', version: '1.0.0' } } });
            await answered(1);
            write({ method: 'notifications/initialized' });
            await log.waitFor(/\[flooding\] connected/);
            write({ id: 2, method: 'tools/call', params: { name: 'flood_logs', arguments: { seconds: 20 } } });
            await answered(2);
            // From here the host reads nothing: what the gateway writes to it backs up.
            proc.stdout.pause();
            const start = rssOf(proc.pid!);
            let peak = start;
            const sampler = setInterval(() => {
                peak = Math.max(peak, rssOf(proc.pid!));
            }, 250);
            const done = await waitUntil(() => log.lines.find(line => /\[flooding\] flood: done, sent \d+/.test(line)), 'the end of the flood', { on: log.changes, timeoutMs: 120_000 });
            clearInterval(sampler);
            peak = Math.max(peak, rssOf(proc.pid!));
            const sent = Number(/sent (\d+)/.exec(done)?.[1]);
            // A real flood: at 4 KB a message, what the server sent is well over the bound.
            assert.ok(sent * 4000 > 100 * MB, `the server sent only ${sent} messages`);
            assert.ok(peak - start <= 100 * MB, `the gateway grew from ${Math.round(start / MB)} to ${Math.round(peak / MB)} MB`);
        } finally {
            proc.kill();
        }
    });
});
