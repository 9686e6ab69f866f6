import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { textOf } from '../../support/helpers.js';
import { stdioGateway, wrapEverything, type Gateway } from './gatewayHelpers.js';

// A wrapped tool's 300 KB result (server-everything's echo of a long message): a model gets its
// start and its end once, within the bound, with a line saying what was left out; for a task, the
// whole result is read back with read_output by the task's id.

const LINES = 6000;
const message = Array.from({ length: LINES }, (_, i) => (i === 3000 ? 'the needle in the middle' : `line ${i} ${'x'.repeat(40)}`)).join('\n');

describe('the gateway bounds a wrapped result too long for a model', { timeout: 120_000 }, () => {
    let gateway: Gateway;

    before(async () => {
        gateway = await stdioGateway(wrapEverything());
    });

    after(() => gateway?.close());

    const call = async (name: string, args: Record<string, unknown>) => gateway.client.callTool({ name, arguments: args });

    it('hands a plain call its start and end, once, within 20 KB, and says how to get all of it', async () => {
        assert.ok(Buffer.byteLength(message) > 290_000);
        const result = await call('echo', { message });
        const text = textOf(result);
        assert.ok(Buffer.byteLength(text) <= 20 * 1024, `${Buffer.byteLength(text)} bytes`);
        assert.match(text, /^Echo: line 0 x+\nline 1 /);
        assert.match(text, /line 5999 x+$/);
        assert.match(text, /\n\[… \d+ line\(s\), \d+ KB of echo's result left out here: start_echo runs it in the background, and read_output then reads the whole result …\]\n/);
        assert.doesNotMatch(text, /the needle in the middle/);
        assert.equal(text.split('line 5999').length, 2, 'the end once');
    });

    it('keeps a task\'s whole result for read_output, by the task id', async () => {
        const started = await call('start_echo', { message });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        const ended = await call('get_task', { task_id: taskId, wait_seconds: 20 });
        const summary = ended.structuredContent as { status: string; result: { content: { text: string }[] } };
        assert.equal(summary.status, 'completed');
        const shown = summary.result.content.map(part => part.text).join('\n');
        assert.ok(Buffer.byteLength(textOf(ended)) <= 24 * 1024, `get_task answered ${Buffer.byteLength(textOf(ended))} bytes`);
        assert.match(shown, new RegExp(`read_output with task_id "${taskId}" reads all of it`));
        const found = await call('read_output', { task_id: taskId, grep: 'needle', context: 1 });
        assert.match(textOf(found), /3001: the needle in the middle/);
        assert.match(textOf(found), /3000- line 2999 x+/);
    });

    it('leaves a short result as it is', async () => {
        assert.equal(textOf(await call('echo', { message: 'short' })), 'Echo: short');
    });
});
