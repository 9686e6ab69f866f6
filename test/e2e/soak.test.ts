/**
 * A short soak (about a minute; `npm run soak` runs the long one): the whole mix against an HTTP
 * server, a stdio server and two Redis replicas, one of them SIGKILLed and restarted twice. No
 * task may be lost, doubled or wrong; the killed replica's running tasks must end with words
 * through the other; nothing may be left running or on disk once the servers stop.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redisSkipReason } from '../support/redisHelpers.js';
import { runSoak } from '../soak/soak.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 45);

describe('soak', { skip: redisSkipReason() }, () => {
    it(`${SECONDS} s of mixed load on three sites: nothing lost, doubled, wrong or left behind`, { timeout: (SECONDS + 240) * 1000 }, async () => {
        const lines: string[] = [];
        const summary = await runSoak({ seconds: SECONDS, idleSeconds: 2, everySeconds: 15, print: line => lines.push(line) });
        const context = `\n${lines.join('\n')}\n${JSON.stringify({ ...summary, points: undefined }, null, 1)}`;
        for (const [name, site] of Object.entries(summary.sites)) {
            assert.deepEqual({ lost: site.counts.lost, doubled: site.counts.doubled, wrong: site.counts.wrong }, { lost: 0, doubled: 0, wrong: 0 }, `${name}: ${site.problems.join('; ')}${context}`);
            for (const outcome of ['completed', 'failed', 'cancelled', 'expired'] as const) {
                assert.ok(site.counts[outcome] > 0, `${name} saw tasks end ${outcome}${context}`);
            }
        }
        assert.deepEqual(summary.sites.memory!.errors, [], `no request to the memory server failed${context}`);
        assert.deepEqual(summary.sites.stdio!.errors, [], `no request to the stdio server failed${context}`);
        assert.equal(summary.sites.memory!.counts.restarted + summary.sites.stdio!.counts.restarted, 0);
        // Two tasks were left running on the replica before each of its two deaths.
        assert.ok(summary.sites.redis!.counts.restarted >= 4, `the killed replica's tasks ended with words${context}`);
        assert.match(summary.restarts[0]!, /\[store\] worker \S+ stopped responding \(its lease lapsed\): failed the \d+ task\(s\) it was running/);
        assert.match(summary.restarts[1]!, /\[store\] worker replica-b restarted: failed the \d+ task\(s\) its previous process left running/);
        for (const restart of summary.restarts) {
            assert.match(restart, /\[commands\] removed the log folder .*, left by server process \d+, which is no longer running/, 'the dead process\'s log folder was removed');
        }
        assert.deepEqual(summary.leftoverProcesses, [], context);
        assert.deepEqual(summary.leftoverFiles, [], context);
    });
});
