import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AMBIGUOUS, CallsInFlight } from '../../../../server/src/gateway/callsInFlight.js';
import type { ToolContext } from '../../../../server/src/tools/types.js';

// Where a downstream's question goes: the task it names, else the newest call still running,
// whatever order the calls end in, but only while every call running is of one client.

const ctx = (name: string, clientKey = 'one') => ({ name, clientKey }) as unknown as ToolContext;
const nameOf = (routed: unknown) => (routed as { name?: string } | undefined)?.name;

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

    it('refuses an untied question while calls of several clients run, until one client is left', () => {
        const calls = new CallsInFlight();
        const alice = calls.begin(ctx('alice', 'a'));
        const bob = calls.begin(ctx('bob', 'b'));
        assert.equal(calls.route({}), AMBIGUOUS);
        bob.end();
        assert.equal(nameOf(calls.route({})), 'alice');
        const unknown = calls.begin({ name: 'library tool' } as unknown as ToolContext);
        assert.equal(calls.route({}), AMBIGUOUS, 'a call of unknown client counts as another client');
        unknown.end();
        alice.end();
    });

    it("counts only plain calls for an untied question while any runs: another client's task names its questions", () => {
        const calls = new CallsInFlight();
        const task = calls.begin(ctx('task of b', 'b'), true);
        const plain = calls.begin(ctx('plain of a', 'a'));
        assert.equal(nameOf(calls.route({})), 'plain of a');
        plain.end();
        assert.equal(nameOf(calls.route({})), 'task of b', 'with no plain call running, the task may have left its name out');
        const other = calls.begin(ctx('task of a', 'a'), true);
        assert.equal(calls.route({}), AMBIGUOUS);
        other.end();
        task.end();
        assert.equal(calls.route({}), undefined);
    });
});
