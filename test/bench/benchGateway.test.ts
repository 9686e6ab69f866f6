// The gateway table's goals (issue 29): echo through the gateway at least 0.7× the direct rate,
// judged on the median of the rounds' own ratios (both sides ran in turns each round); at most
// 8 KiB of gateway memory per wrapped running task; no verdict without the figures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GATEWAY_GOALS, gatewayLines, gatewayRatio, gatewayRows } from '../../bench/lib/gatewayRows.js';
import { settingsFor } from '../../bench/lib/settings.js';
import { roundsOf } from '../support/benchResults.js';

const rows = gatewayRows(settingsFor(true, 'node-http'));
const echoRow = rows.find(row => row.exp === 'gateway')!;
const memoryRow = rows.find(row => row.exp === 'gatewaymem')!;

const echo = (gateway: number[], direct: number[]) => roundsOf('gateway', 'echoRate', { gateway, direct });

describe('gateway rows', () => {
    it('holds echo to 0.7× the direct rate, on the median of the rounds’ own ratios', () => {
        assert.equal(GATEWAY_GOALS.throughputRatio, 0.7);
        // Round by round 0.8, 0.8, 0.4: one round of a busier machine does not decide.
        const steady = echo([8000, 4000, 2000], [10_000, 5000, 5000]);
        assert.equal(gatewayRatio(steady, 'echoRate').toFixed(2), '0.80');
        assert.equal(echoRow.target.met(steady), true);
        const slow = echo([6000, 3000], [10_000, 5000]);
        assert.equal(echoRow.target.met(slow), false);
        const [line] = gatewayLines(slow, [echoRow]);
        assert.equal(line!.ratio, '0.60×');
        assert.equal(line!.met, '**no**');
    });

    it('holds the memory per wrapped running task to 8 KiB', () => {
        const memory = (perTask: number) => roundsOf('gatewaymem', 'perTask', { gateway: [perTask] });
        assert.equal(memoryRow.target.met(memory(8 * 1024)), true);
        assert.equal(memoryRow.target.met(memory(8 * 1024 + 1)), false);
    });

    it('has no verdict without the figures', () => {
        assert.equal(echoRow.target.met(echo([8000], [])), undefined);
        assert.equal(memoryRow.target.met(new Map()), undefined);
        assert.deepEqual(
            gatewayLines(new Map(), rows).map(line => line.met),
            ['?', '?'],
        );
    });
});
