/**
 * The one request path: every method is one handler in one table, served by both revisions
 * unless the table says otherwise, and the capabilities both revisions declare come from one
 * place a front can extend. In process, no transport.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../server/src/util/log.js';
import type { PushChannel } from '../../../../server/src/mcp/context.js';
import { METHODS } from '../../../../server/src/mcp/methods.js';

import { revisionFor } from '../../../../server/src/mcp/dispatch.js';
import { sessionRequest, request2026 } from '../../../../server/src/mcp/router.js';
import { TASKS_EXTENSION, type Envelope } from '../../../../server/src/mcp/rev2026/envelope.js';
import { ErrorCodes, RpcError } from '../../../../server/src/rpc/errors.js';
import { RequestAbort } from '../../../../server/src/rpc/requestAbort.js';
import type { Transport } from '../../../../server/src/rpc/transport.js';
import { TasksServer } from '../../../../server/src/server.js';
import { nap } from '../../../support/napTool.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, PROTOCOL_2026 } from '../../../../server/src/contract.js';

const sink: Transport = { send: () => true, close: () => undefined };
const identity = { clientKey: 'c', isOwner: false };
const envelope: Envelope = { version: PROTOCOL_2026, capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

function pushChannel(): PushChannel {
    const push = {
        protocolVersion: undefined as string | undefined,
        initialized(version: string) {
            push.protocolVersion = version;
        },
        supports: () => false,
        request: () => Promise.reject(new Error('no client here')),
        announceAfter: () => undefined,
        addRoute: () => undefined,
        removeRoute: () => undefined,
    };
    return push;
}

function server(): TasksServer {
    return new TasksServer({ tools: [nap], logger: createLogger('error', () => undefined) });
}

/** The error code a call ends with, or 0 when it answers. */
async function codeOf(call: () => unknown): Promise<number> {
    try {
        await call();
        return 0;
    } catch (err) {
        if (err instanceof RpcError) {
            return err.code;
        }
        throw err;
    }
}

describe('one router for both revisions', () => {
    it('serves every method of the table in both revisions unless the table names one', async () => {
        const core = server();
        const push = pushChannel();
        push.initialized('2025-11-25', {}, undefined);
        try {
            for (const [method, { only }] of METHODS) {
                // subscriptions/listen would stay open; its own suites cover it.
                if (method === 'subscriptions/listen' || method === 'tasks/result') {
                    continue;
                }
                const request = { jsonrpc: '2.0' as const, id: 1, method, params: {} };
                const inSession = await codeOf(() => sessionRequest(core.services, identity, push, request, sink, new RequestAbort()));
                const stateless = await codeOf(() => request2026(core.services, identity, envelope, request, sink, new RequestAbort()));
                assert.equal(inSession === ErrorCodes.MethodNotFound, only === '2026-07-28' || (method === 'tasks/update' && !identity.isOwner), `${method} in a session`);
                assert.equal(stateless === ErrorCodes.MethodNotFound, only === '2025-11-25', `${method} in 2026-07-28`);
            }
        } finally {
            await core.close();
        }
    });

    it('tells a 2026-07-28 client what replaced a method it lacks', async () => {
        const core = server();
        try {
            const request = { jsonrpc: '2.0' as const, id: 1, method: 'tasks/result', params: { taskId: 'x' } };
            assert.throws(() => request2026(core.services, identity, envelope, request, sink, new RequestAbort()), /tasks\/result is not part of protocol 2026-07-28 \(tasks\/get carries the result\)/);
        } finally {
            await core.close();
        }
    });

    it('declares a front’s capabilities in initialize and in server/discover alike', async () => {
        const core = server();
        core.services.capabilities = { prompts: { listChanged: true }, resources: { subscribe: true } };
        try {
            const init = (await sessionRequest(core.services, identity, pushChannel(), { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } }, sink, new RequestAbort())) as {
                capabilities: Record<string, unknown>;
            };
            const discover = (await request2026(core.services, identity, envelope, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: {} }, sink, new RequestAbort())) as { capabilities: Record<string, unknown> };
            for (const capabilities of [init.capabilities, discover.capabilities]) {
                assert.deepEqual(capabilities.prompts, { listChanged: true });
                assert.deepEqual(capabilities.resources, { subscribe: true });
                assert.deepEqual(capabilities.tools, { listChanged: true });
            }
            assert.ok(init.capabilities.tasks, '2025-11-25 declares tasks as a capability');
            assert.deepEqual(discover.capabilities.extensions, { [TASKS_EXTENSION]: {} }, '2026-07-28 as an extension');
        } finally {
            await core.close();
        }
    });

    it('serves a method a front adds, in both revisions, from one handler', async () => {
        const core = server();
        core.services.methods = new Map([['prompts/list', { handler: ctx => ctx.revision.complete({ prompts: [{ name: 'hello', from: ctx.identity.clientKey }] }) }]]);
        const push = pushChannel();
        push.initialized('2025-11-25', {}, undefined);
        try {
            const request = { jsonrpc: '2.0' as const, id: 1, method: 'prompts/list', params: {} };
            assert.deepEqual(await sessionRequest(core.services, identity, push, request, sink, new RequestAbort()), { prompts: [{ name: 'hello', from: 'c' }] });
            assert.deepEqual(await request2026(core.services, identity, envelope, request, sink, new RequestAbort()), { resultType: 'complete', prompts: [{ name: 'hello', from: 'c' }] });
        } finally {
            await core.close();
        }
    });

    it('decides the revision of a message in one function', () => {
        const meta = { [META_PROTOCOL_VERSION]: PROTOCOL_2026, [META_CLIENT_CAPABILITIES]: {} };
        const call = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list', params: { _meta: meta } };
        assert.equal(revisionFor(call, { inSession: false }), '2026-07-28');
        assert.equal(revisionFor(call, { inSession: true }), '2025-11-25', 'a session’s message is 2025-11-25 whatever it carries');
        assert.equal(revisionFor({ jsonrpc: '2.0', id: 2, method: 'initialize', params: {} }, { inSession: false, headerVersion: '' }), '2025-11-25');
        assert.equal(revisionFor({ jsonrpc: '2.0', id: 3, method: 'server/discover' }, { inSession: false }), '2026-07-28');
        assert.equal(revisionFor({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { inSession: false, known2026: () => true }), '2026-07-28', 'a pipe’s known _meta skips the reading');
    });
});
