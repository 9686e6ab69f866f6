import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpServerPerSuite } from '../../support/helpers.js';
import { errorOf, Http2026Client } from '../../support/rev2026.js';

// Multi round-trip requests (SEP-2322) for plain tool calls of 2026-07-28 clients, and progress on
// the request's own stream, through the conformance fixtures (the default tools that ask for input
// all run as tasks).

const TOKEN_A = 'mrtr-token-a';
const TOKEN_B = 'mrtr-token-b';
const ELICIT = 'test_input_required_result_elicitation';


const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('multi round-trip tool calls (2026-07-28)', () => {
    const server = httpServerPerSuite(['--token', TOKEN_A, '--token', TOKEN_B, '--conformance-fixtures']);
    const a = new Http2026Client(server, TOKEN_A);
    const b = new Http2026Client(server, TOKEN_B);

    it('lists the fixtures first, only with --conformance-fixtures', async () => {
        const tools = (await a.call('tools/list')).tools as { name: string }[];
        assert.equal(tools[0]!.name, 'test_simple_text');
        assert.ok(tools.some(tool => tool.name === 'protocol_error_job'));
    });

    it('returns InputRequiredResult, then the result on the retry with the answers and the requestState', async () => {
        const first = await a.call('tools/call', { name: ELICIT, arguments: {} });
        assert.equal(first.resultType, 'input_required');
        const requests = first.inputRequests as Record<string, { method: string }>;
        assert.deepEqual(Object.keys(requests), ['user_name']);
        assert.equal(requests.user_name!.method, 'elicitation/create');
        assert.equal(typeof first.requestState, 'string');
        const second = await a.call('tools/call', { name: ELICIT, arguments: {}, inputResponses: { user_name: accept({ name: 'Ada' }) }, requestState: first.requestState });
        assert.deepEqual(second, { resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
    });

    it('carries earlier answers across rounds in the requestState', async () => {
        const name = 'test_input_required_result_multi_round';
        const r1 = await a.call('tools/call', { name, arguments: {} });
        assert.deepEqual(Object.keys(r1.inputRequests as object), ['step1']);
        const r2 = await a.call('tools/call', { name, arguments: {}, inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: r1.requestState });
        assert.deepEqual(Object.keys(r2.inputRequests as object), ['step2']);
        assert.notEqual(r2.requestState, r1.requestState);
        const r3 = await a.call('tools/call', { name, arguments: {}, inputResponses: { step2: accept({ color: 'green' }) }, requestState: r2.requestState });
        assert.equal((r3.content as { text: string }[])[0]!.text, 'Ada likes green');
    });

    it('refuses a tampered requestState (-32602) and runs nothing on it', async () => {
        const r1 = await a.call('tools/call', { name: 'test_input_required_result_multi_round', arguments: {} });
        const r2 = await a.call('tools/call', { name: 'test_input_required_result_multi_round', arguments: {}, inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: r1.requestState });
        const state = r2.requestState as string;
        const [body, mac] = state.split('.') as [string, string];
        // The answers changed inside, the signature kept.
        const forged = Buffer.from(Buffer.from(body, 'base64url').toString('utf8').replace('Ada', 'Eve')).toString('base64url');
        const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
        for (const requestState of [`${forged}.${mac}`, `${body}.${flipped}`, 'garbage', '', `${body}`]) {
            const reply = await a.post('tools/call', { name: 'test_input_required_result_multi_round', arguments: {}, inputResponses: { step2: accept({ color: 'red' }) }, requestState });
            assert.equal(errorOf(reply.messages).code, -32602, requestState.slice(0, 20));
            assert.match(errorOf(reply.messages).message, /requestState/);
        }
    });

    it('refuses a requestState issued to another identity, or for another call', async () => {
        const r1 = await a.call('tools/call', { name: 'test_input_required_result_multi_round', arguments: {} });
        const theirs = await b.post('tools/call', { name: 'test_input_required_result_multi_round', arguments: {}, inputResponses: { step1: accept({ name: 'Eve' }) }, requestState: r1.requestState });
        assert.equal(errorOf(theirs.messages).code, -32602);
        const otherTool = await a.post('tools/call', { name: ELICIT, arguments: {}, inputResponses: { user_name: accept({ name: 'Eve' }) }, requestState: r1.requestState });
        assert.equal(errorOf(otherTool.messages).code, -32602);
    });

    it('asks again for what a retry left out, and ignores answers to questions never asked', async () => {
        const r1 = await a.call('tools/call', { name: ELICIT, arguments: {} });
        const again = await a.call('tools/call', { name: ELICIT, arguments: {}, inputResponses: { wrong_key: accept({ name: 'Ada' }) }, requestState: r1.requestState });
        assert.equal(again.resultType, 'input_required');
        assert.deepEqual(Object.keys(again.inputRequests as object), ['user_name']);
    });

    it('answers a malformed answer with -32602', async () => {
        const r1 = await a.call('tools/call', { name: ELICIT, arguments: {} });
        const reply = await a.post('tools/call', { name: ELICIT, arguments: {}, inputResponses: { user_name: { action: 'maybe' } }, requestState: r1.requestState });
        assert.equal(errorOf(reply.messages).code, -32602);
    });

    it('asks several things in one round', async () => {
        const r1 = await a.call('tools/call', { name: 'test_input_required_result_multiple_inputs', arguments: {} }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
        assert.deepEqual(Object.keys(r1.inputRequests as object).sort(), ['client_roots', 'greeting', 'user_name']);
    });

    it('needs the capability an input request uses: -32021 naming it', async () => {
        const reply = await a.post('tools/call', { name: 'test_missing_capability', arguments: {} }, { capabilities: {} });
        assert.equal(reply.status, 400);
        assert.deepEqual(errorOf(reply.messages).data, { requiredCapabilities: { sampling: {} } });
    });

    it('gathers input in the call before it becomes a task (test_tool_with_task)', async () => {
        const r1 = await a.call('tools/call', { name: 'test_tool_with_task', arguments: {} });
        assert.equal(r1.resultType, 'input_required');
        assert.equal(r1.taskId, undefined);
        const r2 = await a.call('tools/call', { name: 'test_tool_with_task', arguments: {}, inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: r1.requestState });
        assert.equal(r2.resultType, 'task');
        assert.equal(r2.requestState, undefined);
    });

    it('sends progress on the response stream of the call itself', async () => {
        const reply = await a.post('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p-1' } });
        assert.equal(reply.status, 200);
        assert.match(reply.header('content-type') ?? '', /text\/event-stream/);
        const progress = reply.messages.filter(m => m.method === 'notifications/progress').map(m => m.params!.progress);
        assert.deepEqual(progress, [0, 50, 100]);
        assert.equal(reply.messages.at(-1)!.result!.resultType, 'complete');
        // No log notifications unless the request asked for a level.
        assert.ok(!reply.messages.some(m => m.method === 'notifications/message'));
    });
});
