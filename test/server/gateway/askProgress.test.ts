import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { stdioGateway, wrapMisbehaving, type Gateway } from './gatewayHelpers.js';

// A wrapped tool's call asks its server for progress whenever the progress can be read: now (a
// task, a host's own token) or after --defer-after turns the call into a task, however quick the
// tool's calls have been (a deferred call always has its progress). Only a call whose progress can
// reach no one (no host token, nothing can defer it) does not ask. The downstream (a real process)
// says whether each call carried a progress token.

/** More calls than the rule this replaced counted before it stopped asking (20 quick ones in a row). */
const MANY_QUICK_CALLS = 25;

type Json = Record<string, unknown>;

async function asked(gateway: Gateway, params: Json = {}): Promise<string> {
    return textOf(await gateway.client.request({ method: 'tools/call', params: { name: 'asked', arguments: {}, ...params } }, CallToolResultSchema));
}

describe('asking a wrapped server for progress', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    let undeferred: Gateway;

    before(async () => {
        [gateway, undeferred] = await Promise.all([stdioGateway(wrapMisbehaving()), stdioGateway(['--defer-after', '0', ...wrapMisbehaving()])]);
        await Promise.all([gateway.log.waitFor(/\[misbehaving\] connected/), undeferred.log.waitFor(/\[misbehaving\] connected/)]);
    });

    after(async () => {
        await gateway?.close();
        await undeferred?.close();
    });

    it('asks in every call --defer-after may defer, however many quick ones came before, and in a task or when the host asked', async () => {
        for (let i = 0; i < MANY_QUICK_CALLS; i++) {
            assert.equal(await asked(gateway), 'asked', `call ${i + 1}`);
        }
        assert.equal(await asked(gateway, { _meta: { progressToken: 'mine' } }), 'asked', 'the host asked');
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'asked', arguments: {}, task: {} } }, CreateTaskResultSchema);
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.equal(textOf(result), 'asked', 'a task keeps its progress');
    });

    it('never asks in a plain call with no host token when nothing can defer it (--defer-after 0)', async () => {
        assert.equal(await asked(undeferred), 'not asked');
        assert.equal(await asked(undeferred, { _meta: { progressToken: 'mine' } }), 'asked');
    });
});

describe('asking a wrapped 2026-07-28 server for progress', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(['--wrap', '--', process.execPath, resolve(__dirname, '../fixtures/gateway/misbehaving2026.mjs')]);
        await gateway.log.waitFor(/\[misbehaving2026\] connected/);
    });

    after(() => gateway?.close());

    it('follows the same rule: asks in every call --defer-after may defer, and whenever the host asked', async () => {
        for (let i = 0; i < MANY_QUICK_CALLS; i++) {
            assert.equal(await asked(gateway), 'asked', `call ${i + 1}`);
        }
        assert.equal(await asked(gateway, { _meta: { progressToken: 'mine' } }), 'asked');
    });
});
