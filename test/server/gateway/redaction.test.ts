import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { textOf } from '../../support/helpers.js';
import { everythingOverHttp, stdioGateway, type Gateway } from './gatewayHelpers.js';
import { posixOnly } from '../../support/platforms.js';

// The credentials of a server wrapped by URL (--wrap-header values, the --wrap-url query) never
// show: not in a command tool's output (a command can read the gateway's command line), not in
// what a wrapped tool hands the model, not in the log. Real processes: server-everything over
// Streamable HTTP, the gateway on stdio with a command tool beside it.

const HEADER_SECRET = 'header-sekrit-0815-abcdef';
const QUERY_SECRET = 'query-sekrit-4711-abcdef';

describe('the gateway hides the credentials of a server it wraps by URL', { timeout: 120_000, ...posixOnly('the command tool reads its parent\'s command line from /proc or ps') }, () => {
    let downstream: Awaited<ReturnType<typeof everythingOverHttp>>;
    let gateway: Gateway;
    let dir: string;

    before(async () => {
        downstream = await everythingOverHttp();
        dir = mkdtempSync(join(tmpdir(), 'redaction-'));
        const file = join(dir, 'commands.json');
        // Prints its parent's command line: the gateway's, flags and all (/proc on Linux, ps on macOS).
        const showParent =
            process.platform === 'linux'
                ? "process.stdout.write(require('fs').readFileSync('/proc/' + process.ppid + '/cmdline', 'utf8').split('\\0').join(' '))"
                : "process.stdout.write(require('child_process').execFileSync('ps', ['-o', 'command=', '-p', String(process.ppid)], { encoding: 'utf8' }))";
        writeFileSync(file, JSON.stringify({ tools: [{ name: 'show_parent', description: 'Prints the server command line.', command: [process.execPath, '-e', showParent] }] }));
        gateway = await stdioGateway(['--commands', file, '--wrap-url', `${downstream.url}?api_key=${QUERY_SECRET}`, '--wrap-header', `Authorization: Bearer ${HEADER_SECRET}`]);
        await gateway.log.waitFor(/connected \(mcp-servers\/everything/);
    });

    after(async () => {
        await gateway?.close();
        await downstream?.stop();
        rmSync(dir, { recursive: true, force: true });
    });

    it("a command tool's output shows the header value and the query as ***", async () => {
        const output = textOf(await gateway.client.callTool({ name: 'show_parent', arguments: {} }));
        assert.match(output, /--wrap-url http:\/\/127\.0\.0\.1:\d+\/mcp\?api_key=\*\*\* --wrap-header Authorization: \*\*\* /);
        assert.ok(!output.includes(HEADER_SECRET) && !output.includes(QUERY_SECRET), output);
    });

    it("a wrapped tool's result and the log show them as ***", async () => {
        const result = await gateway.client.callTool({ name: 'echo', arguments: { message: `${HEADER_SECRET} and ${QUERY_SECRET}` } });
        assert.equal(textOf(result), 'Echo: *** and ***');
        const leaked = gateway.log.lines.filter(line => line.includes(HEADER_SECRET) || line.includes(QUERY_SECRET));
        assert.deepEqual(leaked, []);
    });
});
