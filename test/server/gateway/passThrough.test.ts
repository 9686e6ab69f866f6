import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ListPromptsResultSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitUntil } from '../../support/wait.js';
import { httpGateway, stdioGateway, wrapEverything, wrapMisbehaving, type Gateway } from './gatewayHelpers.js';

// Everything but tools passes through the gateway to server-everything (from npm, its own process):
// prompts, resources (list, read, templates, subscribe), completions and logging, with the
// capabilities following the downstream's, and its notifications reaching the host.

type Json = Record<string, unknown>;

describe('pass-through of prompts, resources, completions and logging', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    const updates: Json[] = [];
    const messages: Json[] = [];

    before(async () => {
        gateway = await stdioGateway(wrapEverything());
        gateway.client.setNotificationHandler(ResourceUpdatedNotificationSchema, notification => void updates.push(notification.params));
        gateway.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => void messages.push(notification.params));
    });

    after(() => gateway?.close());

    it("declares the downstream's features beside tools and tasks (all of them while it starts: the client learns them once)", () => {
        const capabilities = gateway.client.getServerCapabilities()!;
        assert.ok(capabilities.prompts && capabilities.resources && capabilities.completions && capabilities.logging, JSON.stringify(capabilities));
        assert.equal(capabilities.resources.subscribe, true);
        assert.ok(capabilities.tasks && capabilities.tools);
    });

    it('lists and gets prompts, and completes their arguments', async () => {
        const { prompts } = await gateway.client.listPrompts();
        assert.ok(prompts.some(prompt => prompt.name === 'simple-prompt') && prompts.some(prompt => prompt.name === 'completable-prompt'), JSON.stringify(prompts.map(p => p.name)));
        const got = await gateway.client.getPrompt({ name: 'completable-prompt', arguments: { department: 'Sales', name: 'Eve' } });
        assert.match(JSON.stringify(got.messages), /Please promote Eve to the head of the Sales team/);
        const completed = await gateway.client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Ma' } });
        assert.deepEqual(completed.completion.values, ['Marketing']);
        await assert.rejects(gateway.client.getPrompt({ name: 'no-such-prompt' }), /Unknown prompt: no-such-prompt/);
    });

    it('lists, reads and lists templates of resources', async () => {
        const { resources } = await gateway.client.listResources();
        assert.ok(resources.length > 0);
        const first = resources[0]!;
        const read = await gateway.client.readResource({ uri: first.uri });
        assert.equal(read.contents[0]?.uri, first.uri);
        const { resourceTemplates } = await gateway.client.listResourceTemplates();
        assert.ok(resourceTemplates.some(template => template.uriTemplate.startsWith('demo://resource/dynamic')), JSON.stringify(resourceTemplates));
        // A templated URI nobody listed still reaches the server that knows it.
        const dynamic = await gateway.client.readResource({ uri: 'demo://resource/dynamic/text/1' });
        assert.equal(dynamic.contents[0]?.uri, 'demo://resource/dynamic/text/1');
    });

    it('forwards subscribe, and the resource updates reach the host', async () => {
        const { resources } = await gateway.client.listResources();
        const uri = resources[0]!.uri;
        await gateway.client.subscribeResource({ uri });
        await gateway.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
        await waitUntil(() => updates.some(update => update.uri === uri), `an update of ${uri}`);
    });

    it('forwards logging/setLevel, and the log messages reach the host', async () => {
        await gateway.client.setLoggingLevel('debug');
        await gateway.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
        await waitUntil(() => messages.length > 0, 'a log message');
    });
});

describe('pass-through once the wrapped server is up, for a client that initializes then', { timeout: 60_000 }, () => {
    it("passes on the downstream's instructions after ours", async () => {
        const gateway = await httpGateway(wrapEverything());
        try {
            await gateway.log.waitFor(/\[gateway\] 1 of 1 wrapped server\(s\) up after their first start/);
            const client = await gateway.connect();
            assert.match(client.getInstructions() ?? '', /^MCP Tasks server\.[^]*\n\nFrom the wrapped server "server-everything": ./);
        } finally {
            await gateway.stop();
        }
    });

    it('declares no prompts or resources for a server that has none, and answers method not found', async () => {
        const gateway = await httpGateway(wrapMisbehaving());
        try {
            await gateway.log.waitFor(/\[gateway\] 1 of 1 wrapped server\(s\) up after their first start/);
            const client = await gateway.connect();
            const capabilities = client.getServerCapabilities()!;
            assert.equal(capabilities.prompts, undefined);
            assert.equal(capabilities.resources, undefined);
            await assert.rejects(client.request({ method: 'prompts/list', params: {} }, ListPromptsResultSchema), /Method not found/);
        } finally {
            await gateway.stop();
        }
    });
});
