import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, CreateMessageRequestSchema, CreateTaskResultSchema, ElicitRequestSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { pollUntilTerminal } from '../../support/messageTap.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, wrapEverything, type Gateway } from './gatewayHelpers.js';

// The gateway in front of @modelcontextprotocol/server-everything (from npm, its own process, on
// stdio), with the SDK's 2025-11-25 client on the gateway's stdio: every downstream tool is ours,
// as a task tool, with its progress, questions, cancellation and result.

type Json = Record<string, unknown>;

describe('the gateway wrapping server-everything over stdio', { timeout: 120_000 }, () => {
    let gateway: Gateway;
    const progress: Json[] = [];

    before(async () => {
        gateway = await stdioGateway(wrapEverything(), { elicitation: { form: {} }, sampling: {} });
        gateway.client.setNotificationHandler(ProgressNotificationSchema, notification => void progress.push(notification.params));
        gateway.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
        gateway.client.setRequestHandler(CreateMessageRequestSchema, async request => ({
            role: 'assistant',
            model: 'test-model',
            content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
        }));
    });

    after(() => gateway?.close());

    it('lists the downstream tools under their own names, as task tools, with their schemas and start_ tools', async () => {
        const { tools } = await gateway.client.listTools();
        const byName = new Map(tools.map(tool => [tool.name, tool]));
        const long = byName.get('trigger-long-running-operation');
        assert.ok(long, `tools: ${[...byName.keys()].join(', ')}`);
        assert.equal(long.execution?.taskSupport, 'optional');
        assert.deepEqual(Object.keys((long.inputSchema as { properties: Json }).properties).sort(), ['duration', 'steps']);
        assert.equal(long.annotations?.readOnlyHint, true);
        // A downstream task tool stays required.
        assert.equal(byName.get('simulate-research-query')?.execution?.taskSupport, 'required');
        // Conditional tools (registered once the client declared elicitation/sampling) are there: the gateway declares both.
        assert.ok(byName.has('trigger-elicitation-request') && byName.has('trigger-sampling-request'));
        assert.deepEqual(byName.get('start_trigger-long-running-operation')?.inputSchema, long.inputSchema);
        // No demonstration tools in a gateway.
        assert.equal(byName.has('slow_compute'), false);
    });

    it('answers a plain call with the downstream result, structured content included', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'through the gateway' } })), 'Echo: through the gateway');
        const sum = await gateway.client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
        assert.ok(sum.structuredContent, JSON.stringify(sum));
    });

    it('runs a task-augmented call as our task: the downstream progress reaches the host under its token, and the result is the downstream one', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 }, task: {}, _meta: { progressToken: 'long-1' } } },
            CreateTaskResultSchema,
        );
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.match(textOf(result), /Long running operation completed\. Duration: 0\.3 seconds, Steps: 3/);
        const mine = progress.filter(p => p.progressToken === 'long-1').map(p => p.progress as number);
        assert.ok(mine.length >= 2, `progress seen: ${JSON.stringify(mine)}`);
        assert.deepEqual([...mine].sort((a, b) => a - b), mine, 'progress only increases');
    });

    it('asks the downstream elicitation of a task of the host, and passes the answer back', async () => {
        const { task } = await gateway.client.request({ method: 'tools/call', params: { name: 'trigger-elicitation-request', arguments: {}, task: {} } }, CreateTaskResultSchema);
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.match(textOf(result), /User declined/);
    });

    it('asks the downstream sampling of a plain call of the host', async () => {
        const result = await gateway.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'a haiku', maxTokens: 20 } });
        assert.match(textOf(result), /sampled: .*a haiku/);
    });

    it('mirrors a downstream task tool (simulate-research-query): its question reaches the host, its result is ours', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'gateways', ambiguous: true }, task: {}, _meta: { progressToken: 'research' } } },
            CreateTaskResultSchema,
        );
        assert.equal(await pollUntilTerminal(gateway.client, task.taskId), 'completed');
        const result = await gateway.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        assert.match(textOf(result), /Research Report: gateways \(User declined/);
        // The downstream task's status messages arrived as our progress messages.
        await waitUntil(() => progress.some(p => p.progressToken === 'research' && /Gathering sources/.test(String(p.message))), 'a mirrored status message');
    });

    it('says whether the wrapped server confirmed the cancel of a mirrored task (its answer to tasks/cancel)', async () => {
        const { task } = await gateway.client.request(
            { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'cancelled research' }, task: {}, _meta: { progressToken: 'to-cancel' } } },
            CreateTaskResultSchema,
        );
        await waitUntil(() => progress.some(p => p.progressToken === 'to-cancel'), 'the mirrored task under way');
        assert.equal((await gateway.client.experimental.tasks.cancelTask(task.taskId)).status, 'cancelled');
        const result = await gateway.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.match(textOf(result), /^Task cancelled: Cancelled by the client\n\nThe wrapped server "[^"]+" confirmed: its task [\w-]+ is cancelled\.$/);
    });

    it('serves the wrapped tools to a client that never sends task: start_<tool>, then get_task', async () => {
        const started = await gateway.client.callTool({ name: 'start_trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        const done = await waitUntil(async () => {
            const got = await gateway.client.callTool({ name: 'get_task', arguments: { task_id: taskId, wait_seconds: 5 } });
            return (got.structuredContent as { status: string }).status === 'completed' ? got : undefined;
        }, 'the background task to complete');
        assert.match(textOf(done), /Long running operation completed/);
    });
});
