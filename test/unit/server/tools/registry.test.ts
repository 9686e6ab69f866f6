import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { RpcError } from '../../../../server/src/rpc/errors.js';
import { greetTool } from '../../../../server/src/demo/greet.js';
import { parseArguments } from '../../../../server/src/tools/registry.js';
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
