/** The scripted model's own logic, without a host: which turn a request gets and how a tool name is found. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findInstructions } from './instructions.js';
import { decideReply, offeredName, type Turn } from './script.js';

const script: Turn[] = [{ call: 'greet', args: { name: 'Ada' } }, { text: 'Greeted Ada.' }];
const result = { text: 'Hello, Ada!', raw: {} };

describe('scripted model', () => {
    it('finds our tool under each host\'s spelling, not start_<tool> nor a name that merely ends the same', () => {
        assert.equal(offeredName(['Bash', 'mcp__tasks__greet'], 'greet'), 'mcp__tasks__greet');
        assert.equal(offeredName(['mcp__tasks.greet'], 'greet'), 'mcp__tasks.greet');
        assert.equal(offeredName(['tasks_start_run_tests', 'tasks_run_tests'], 'run_tests'), 'tasks_run_tests');
        assert.equal(offeredName(['regreet'], 'greet'), undefined);
        assert.equal(offeredName(['greet', 'mcp_tasks_greet'], 'greet'), 'greet');
    });

    it('takes its turn from the number of tool results in the conversation', () => {
        assert.deepEqual(decideReply(script, { tools: ['mcp_tasks_greet'], results: [] }), { kind: 'call', name: 'mcp_tasks_greet', args: { name: 'Ada' }, id: 'call_0' });
        assert.deepEqual(decideReply(script, { tools: ['mcp_tasks_greet'], results: [result] }), { kind: 'text', text: 'Greeted Ada.' });
        assert.deepEqual(decideReply(script, { tools: ['mcp_tasks_greet'], results: [result, result, result] }), { kind: 'text', text: 'Greeted Ada.' });
    });

    it('answers a side request that offers no tools with text, consuming no turn', () => {
        assert.equal(decideReply(script, { tools: [], results: [] }).kind, 'text');
    });

    it('says so when the tool it should call is not offered', () => {
        const reply = decideReply(script, { tools: ['Bash'], results: [] });
        assert.equal(reply.kind, 'text');
        assert.match(reply.kind === 'text' ? reply.text : '', /no tool greet among Bash/);
    });

    it('computes a turn\'s arguments from the previous tool result, when they are a function', () => {
        const follow: Turn[] = [{ call: 'slow_build', args: {} }, { call: 'get_task', args: previous => ({ task_id: /task (\w+)/.exec(previous)?.[1] }) }];
        const deferred = { text: 'slow_build is still running; it continues in the background as task abc123.', raw: {} };
        assert.deepEqual(decideReply(follow, { tools: ['tasks_get_task', 'tasks_slow_build'], results: [deferred] }), {
            kind: 'call',
            name: 'tasks_get_task',
            args: { task_id: 'abc123' },
            id: 'call_1',
        });
    });

    it('finds the instructions wherever the host put them, as the line that holds them', () => {
        const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: '# MCP Server Instructions\n## tasks\nMCP Tasks server. Call get_task.\n</x>' }] }] };
        assert.deepEqual(findInstructions(body, 'MCP Tasks server.'), { where: 'messages.0.content.1.text', text: 'MCP Tasks server. Call get_task.' });
        assert.equal(findInstructions({ tools: [] }, 'MCP Tasks server.'), undefined);
    });
});
