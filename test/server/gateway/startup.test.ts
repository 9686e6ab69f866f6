/**
 * A wrapped server that is slow to start never delays the gateway's first answer: `initialize` is
 * answered while the wrapped server cannot be up (it waits for a gate file the test writes later),
 * every feature is declared meanwhile, its tools arrive with notifications/tools/list_changed, and a
 * call of one of them made before it is up waits for it and gets its answer. Before, `initialize`
 * waited for every wrapped server (29 s for an npx server here), and Claude Code falls back to
 * the older revision, without tasks, after 3 s.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { Feed } from '../../support/wait.js';
import { stdioGateway } from './gatewayHelpers.js';

const GATED = resolve(__dirname, '../fixtures/gateway/gated.mjs');

describe('a wrapped server that is slow to start', { timeout: 60_000 }, () => {
    it('initialize is answered before it is up; its tools arrive with list_changed; a call made meanwhile waits for it', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'gateway-gated-'));
        const gate = join(dir, 'open');
        const gateway = await stdioGateway(['--wrap', '--', process.execPath, GATED, gate]);
        try {
            const changed = new Feed<true>();
            gateway.client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.push(true));
            // Answered: the wrapped server cannot have connected, its gate is still shut.
            assert.ok(!gateway.log.lines.some(line => /\[gated\] connected/.test(line)), 'answered while the wrapped server was not up');
            const capabilities = gateway.client.getServerCapabilities()!;
            assert.ok(capabilities.tools?.listChanged && capabilities.prompts && capabilities.resources, `every feature declared while it starts: ${JSON.stringify(capabilities)}`);
            await gateway.log.waitFor(/\[gated\] gated: waiting for its gate/);

            // A call of a tool it will have, made before it is up: it waits.
            const call = gateway.client.callTool({ name: 'echo', arguments: { message: 'early' } });
            writeFileSync(gate, '');
            await changed.waitFor(() => true, 'notifications/tools/list_changed once it is up');
            assert.equal(textOf(await call), 'Echo: early');
            const { tools } = await gateway.client.listTools();
            assert.ok(tools.some(tool => tool.name === 'echo'), tools.map(tool => tool.name).join(', '));
            await gateway.log.waitFor(/\[gateway\] 1 of 1 wrapped server\(s\) up after their first start/);
        } finally {
            await gateway.close();
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
