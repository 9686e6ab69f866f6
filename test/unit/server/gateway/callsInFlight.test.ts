import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallsInFlight } from '../../../../server/src/gateway/callsInFlight.js';
import type { ToolContext } from '../../../../server/src/tools/types.js';

// Where a downstream's question goes: the task it names, else the newest call still running,
// whatever order the calls end in.

const ctx = (name: string) => ({ name }) as unknown as ToolContext;

describe('CallsInFlight', () => {
    it('routes an untied question to the newest running call as calls end in any order', () => {
        const calls = new CallsInFlight();
        const [a, b, c] = [ctx('a'), ctx('b'), ctx('c')];
        const runs = [a, b, c].map(call => calls.begin(call));
        assert.equal(calls.route(undefined), c);
        runs[0]!.end();
        assert.equal(calls.route({}), c);
        runs[2]!.end();
        assert.equal(calls.route({}), b);
        // Ending twice changes nothing.
        runs[2]!.end();
        assert.equal(calls.size, 1);
        const d = ctx('d');
        const runD = calls.begin(d);
        assert.equal(calls.route({}), d);
        runD.end();
        runs[1]!.end();
        assert.equal(calls.route({}), undefined);
        assert.equal(calls.size, 0);
    });

    it('routes a question naming a downstream task to the call that mirrors it', () => {
        const calls = new CallsInFlight();
        const mirror = ctx('mirror');
        calls.begin(ctx('plain'));
        const unbind = calls.bindTask('t1', mirror);
        assert.equal(calls.route({ _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }), mirror);
        unbind();
        assert.equal(calls.route({ _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }), undefined);
    });
});
