import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { textOf } from '../../support/helpers.js';
import { stdioGateway, type Gateway } from './gatewayHelpers.js';

// A wrapped server that lists tools a host cannot use (a bad name, no input schema) beside a good
// one: each bad tool is left out alone, named in the log, and the good one serves. Before, the
// SDK client's check of the whole list failed the server, which restarted forever.

const BAD_TOOLS = resolve(__dirname, '../fixtures/gateway/badTools.mjs');

describe('the gateway checks a wrapped server\'s tools one by one', { timeout: 60_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(['--no-task-tools', '--wrap', '--', process.execPath, BAD_TOOLS]);
    });

    after(() => gateway?.close());

    it('serves the good tool and leaves out each bad one, saying why', async () => {
        const names = (await gateway.client.listTools()).tools.map(tool => tool.name);
        assert.deepEqual(names, ['echo']);
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'echo: hi');
        const log = gateway.log.lines.join('\n');
        for (const expected of [
            /tool "has space" left out: its name must be 1 to 128 letters, digits/,
            /tool "line\\nbreak" left out: its name must be/,
            /tool "x{59}…" left out: its name must be/,
            /tool "" left out: its name must be/,
            /tool "no_schema" left out: it has no inputSchema of type "object", which MCP requires/,
            /tool "array_schema" left out: it has no inputSchema of type "object"/,
        ]) {
            assert.match(log, expected);
        }
        assert.doesNotMatch(log, /restart/i, 'the server is not restarted for its tools');
    });
});
