/** A running command's progress: the latest line that says something, and once tests end, how many passed and failed so far. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { progressThrottle } from '../../../../server/src/commands/progress.js';
import type { CommandSpec } from '../../../../server/src/commands/spec.js';
import type { ToolContext } from '../../../../server/src/tools/types.js';
import { ManualClock } from '../../../support/manualClock.js';

const sample = readFileSync(resolve(__dirname, '../../../fixtures/testOutput/node-tap.txt'), 'utf8');

/** Feeds the lines a rate window apart, so each one that counts goes out; the messages sent. */
async function progressOf(lines: string[]): Promise<string[]> {
    const clock = new ManualClock();
    const sent: string[] = [];
    const ctx = { signal: new AbortController().signal, progress: (_progress: number, _total?: number, message?: string) => sent.push(message ?? '') } as unknown as ToolContext;
    const throttle = progressThrottle({} as CommandSpec, ctx, clock);
    for (const line of lines) {
        throttle.line(line);
        await clock.tick(300);
    }
    await throttle.dispose();
    return sent;
}

describe('command progress', () => {
    it('node:test TAP: before any test ends, the lines that say something; then each test that ends, after the counts so far, and none of the YAML between', async () => {
        const sent = await progressOf(sample.split('\n'));
        const first = sent.findIndex(message => message.includes('so far'));
        assert.deepEqual(sent.slice(0, first), ['TAP version 13', '# Subtest: store', '    # Subtest: reads']);
        assert.deepEqual(sent.slice(first), [
            '0 passed, 1 failed so far — not ok 1 - reads',
            '1 passed, 1 failed so far — ok 1 - adds',
            '1 passed, 2 failed so far — not ok 2 - multiplies',
            '1 passed, 3 failed so far — not ok 3 - divides',
            '1 passed, 4 failed so far — not ok 3 - throws a plain error',
            '2 passed, 4 failed so far — ok 4 - top passes',
        ]);
    });

    it('output that is not a known runner’s: the latest line with a letter or digit, as it came', async () => {
        assert.deepEqual(await progressOf(['step one', '  ...', '-----', 'step two  ', '']), ['step one', 'step two  ']);
    });

    it('a long last test is cut so the message fits one line', async () => {
        const [message] = await progressOf([`ok 1 - ${'x'.repeat(500)}`]);
        assert.equal(message!.length, 200);
        assert.match(message!, /^1 passed, 0 failed so far — ok 1 - x+…$/);
    });
});
