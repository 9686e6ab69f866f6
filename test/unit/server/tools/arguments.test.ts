import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { RpcError } from '../../../../server/src/rpc/errors.js';
import { greetTool } from '../../../../server/src/demo/greet.js';
import { argumentsErrorResult, checkArguments, parseArguments } from '../../../../server/src/tools/arguments.js';
import { slowComputeTool } from '../../../../server/src/demo/slowCompute.js';
import { defineTool, textResult } from '../../../../server/src/tools/types.js';
import { assertRpcThrows } from '../../../support/rpcThrows.js';

describe('parseArguments', () => {
    it('applies defaults and passes valid arguments through', () => {
        assert.deepEqual(parseArguments(slowComputeTool, undefined), { seconds: 3, label: 'default' });
        assert.deepEqual(parseArguments(slowComputeTool, { seconds: 0.5, label: 'x' }), { seconds: 0.5, label: 'x' });
        assert.deepEqual(parseArguments(greetTool, { name: 'Ada' }), { name: 'Ada' });
    });

    it('names each failing field in a -32602', () => {
        assertRpcThrows(() => parseArguments(slowComputeTool, { seconds: 'ten' }), -32602, /^Invalid arguments for tool slow_compute: seconds: .*expected number/);
        assertRpcThrows(() => parseArguments(slowComputeTool, { seconds: -1 }), -32602, /seconds: /);
        assertRpcThrows(() => parseArguments(greetTool, {}), -32602, /greet: name: /);
        try {
            parseArguments(slowComputeTool, { seconds: 'ten', label: 7 });
            assert.fail('expected invalid arguments');
        } catch (err) {
            assert.ok(err instanceof RpcError);
            assert.match(err.message, /seconds: .*; label: /);
            const issues = (err.data as { issues: { path: unknown[] }[] }).issues;
            assert.deepEqual(issues.map(i => i.path).sort(), [['label'], ['seconds']]);
        }
    });

    it('names nested fields by path, and the whole object when it is not one', () => {
        const nested = defineTool({
            name: 'nested',
            title: 'Nested',
            description: 'test',
            inputSchema: z.object({ job: z.object({ id: z.string() }) }),
            taskSupport: 'optional',
            run: async () => textResult('ok'),
        });
        assertRpcThrows(() => parseArguments(nested, { job: { id: 1 } }), -32602, /nested: job\.id: /);
        assertRpcThrows(() => parseArguments(nested, 'not an object'), -32602, /\(arguments\): /);
    });
});

function problemOf(tool: Parameters<typeof checkArguments>[0], args: unknown): string {
    const checked = checkArguments(tool, args);
    assert.ok('problem' in checked, 'refused');
    return checked.problem;
}

describe('checkArguments', () => {
    it('says what is wrong and the shape the tool takes, for a model to correct its call', () => {
        const checked = checkArguments(slowComputeTool, { seconds: 'ten' });
        assert.ok('problem' in checked);
        assert.match(checked.problem, /^Invalid arguments for tool slow_compute: seconds: .*expected number.*\. slow_compute takes \{seconds: number, label: string\}$/);
        assert.match(problemOf(greetTool, {}), /greet takes \{name: string \(required\)\}$/);
        const result = argumentsErrorResult(checked.problem);
        assert.equal(result.isError, true);
        assert.equal(result.structuredContent, undefined, 'no structuredContent that an output schema check would refuse');
        assert.match((result.content[0] as { text: string }).text, /Call it again with arguments of that shape\.$/);
    });

    it('names enums, arrays and a tool without arguments', () => {
        const tool = defineTool({
            name: 'shapes',
            title: 'Shapes',
            description: 'test',
            inputSchema: z.object({ level: z.enum(['low', 'high']), tags: z.array(z.string()).optional() }).strict(),
            taskSupport: 'forbidden',
            run: async () => textResult('ok'),
        });
        assert.match(problemOf(tool, {}), /shapes takes \{level: one of "low", "high" \(required\), tags: array of string\}$/);
        const none = defineTool({ name: 'none', title: 'None', description: 'test', inputSchema: z.object({}).strict(), taskSupport: 'forbidden', run: async () => textResult('ok') });
        assert.match(problemOf(none, { extra: 1 }), /none takes no arguments \(\{\}\)$/);
    });
});
