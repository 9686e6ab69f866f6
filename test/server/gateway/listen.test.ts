import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TRANSPORTS, type LogTail } from '../../support/helpers.js';
import { StdioLines } from '../../support/lightRpc.js';
import { meta } from '../../support/rev2026.js';
import { waitUntil } from '../../support/wait.js';
import { v2Gateway, wrapChanging, wrapEverything, type V2Client } from './gatewayHelpers.js';

// subscriptions/listen (2026-07-28) carries the wrapped servers' prompt and resource changes, as a
// 2025-11-25 session gets them unasked: the official client (@modelcontextprotocol/client 2.x,
// pinned to 2026-07-28) opens the stream with its listen(), over stdio and HTTP, in front of
// server-everything (its subscriber updates) and of our `changing` server (prompts and resources
// added on request, updates of the URIs it is told), each its own process.

type Json = Record<string, unknown>;
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Every notification of `methods` the client receives, in order. */
function collect(client: V2Client, methods: string[]): { method: string; params: Json }[] {
    const seen: { method: string; params: Json }[] = [];
    for (const method of methods) {
        client.setNotificationHandler(method as never, ((notification: { params?: Json }) => void seen.push({ method, params: notification.params ?? {} })) as never);
    }
    return seen;
}

for (const kind of TRANSPORTS) {
    describe(`subscriptions/listen in front of server-everything (${kind})`, { timeout: 120_000 }, () => {
        let client: V2Client;
        let close: () => Promise<void>;

        before(async () => {
            ({ client, close } = await v2Gateway(kind, wrapEverything()));
        });

        after(() => close?.());

        it('lists and reads resources and prompts; a resource named in resourceSubscriptions gets its notifications/resources/updated on the stream', async () => {
            const seen = collect(client, ['notifications/resources/updated']);
            const { resources } = await client.listResources();
            const uri = resources[0]!.uri;
            // The lists and reads a 2026-07-28 client may cache say for how long (SEP-2549; the client checks).
            assert.equal((await client.readResource({ uri })).contents[0]?.uri, uri);
            assert.ok((await client.listResourceTemplates()).resourceTemplates.length > 0);
            assert.ok((await client.listPrompts()).prompts.length > 0);
            const subscription = await client.listen({ resourceSubscriptions: [uri], promptsListChanged: true, resourcesListChanged: true });
            assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: [uri], promptsListChanged: true, resourcesListChanged: true });
            await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
            const update = await waitUntil(() => seen.find(n => n.params.uri === uri), `an update of ${uri}`);
            assert.ok((update.params._meta as Json | undefined)?.[SUBSCRIPTION_ID], 'tagged with the subscription id');
            await subscription.close();
        });
    });

    describe(`subscriptions/listen in front of a server whose prompts and resources change (${kind})`, { timeout: 120_000 }, () => {
        let client: V2Client;
        let log: LogTail;
        let close: () => Promise<void>;

        before(async () => {
            ({ client, log, close } = await v2Gateway(kind, wrapChanging()));
        });

        after(() => close?.());

        it('carries the prompts and resources list changes, and updates of the named URIs only; the wrapped server is unsubscribed when the stream ends', async () => {
            const seen = collect(client, ['notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/resources/updated']);
            const subscription = await client.listen({ promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['changing://a'] });
            assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, ['changing://a']);
            await log.waitFor(/subscribe: changing:\/\/a/);
            await client.callTool({ name: 'add-prompt', arguments: { name: 'second' } });
            await waitUntil(() => seen.some(n => n.method === 'notifications/prompts/list_changed'), 'prompts/list_changed');
            assert.ok((await client.listPrompts()).prompts.some(prompt => prompt.name === 'second'));
            await client.callTool({ name: 'add-resource', arguments: { name: 'b' } });
            await waitUntil(() => seen.some(n => n.method === 'notifications/resources/list_changed'), 'resources/list_changed');
            // In order from one server: once a's update is here, b's (not named) would have come first.
            await client.callTool({ name: 'touch', arguments: { uris: ['changing://b', 'changing://a'] } });
            await waitUntil(() => seen.some(n => n.method === 'notifications/resources/updated'), 'an update');
            assert.deepEqual(
                seen.filter(n => n.method === 'notifications/resources/updated').map(n => n.params.uri),
                ['changing://a'],
            );
            await subscription.close();
            await log.waitFor(/unsubscribe: changing:\/\/a/);
        });

        it('a wrapped server that restarts is subscribed again: the listener goes on getting its updates', async () => {
            const seen = collect(client, ['notifications/resources/updated']);
            const count = (pattern: RegExp) => log.lines.filter(line => pattern.test(line)).length;
            const subscribes = () => count(/\] subscribe: changing:\/\/c$/);
            const subscription = await client.listen({ resourceSubscriptions: ['changing://c'] });
            await waitUntil(() => subscribes() === 1, 'the first subscribe', { on: log.changes });
            const connections = count(/\[changing\] connected/);
            await client.callTool({ name: 'exit', arguments: {} });
            await waitUntil(() => count(/\[changing\] connected/) > connections, 'the wrapped server back', { on: log.changes });
            await waitUntil(() => subscribes() === 2, 'the subscribe sent again', { on: log.changes });
            await client.callTool({ name: 'touch', arguments: { uris: ['changing://c'] } });
            await waitUntil(() => seen.some(n => n.params.uri === 'changing://c'), 'the update after the restart');
            await subscription.close();
        });
    });
}

describe('subscriptions/listen refuses a malformed resourceSubscriptions', { timeout: 60_000 }, () => {
    it('answers -32602 saying what it must be, and the server goes on', async () => {
        const server = StdioLines.start(wrapChanging());
        try {
            const bad = await server.call(1, 'subscriptions/listen', { notifications: { resourceSubscriptions: 'changing://a' }, _meta: meta() });
            assert.equal(bad.error?.code, -32602);
            assert.match(bad.error!.message, /notifications\.resourceSubscriptions must be an array of at most 1000 resource URI strings/);
            assert.ok((await server.call(2, 'server/discover', { _meta: meta() })).result);
        } finally {
            server.kill();
        }
    });
});
