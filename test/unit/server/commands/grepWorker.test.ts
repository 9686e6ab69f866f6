/** The grep runner: searches in workers, stopped at the deadline, at most two per caller, with the main thread free meanwhile. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GrepBusy, GrepRunner, type GrepJob } from '../../../../server/src/commands/grepWorker.js';

const dir = mkdtempSync(join(tmpdir(), 'grep-worker-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'log');
writeFileSync(path, ['ok 1', '\x1b[31mnot ok 2\x1b[0m - red', 'a'.repeat(30) + '!', 'ok 3\r', 'tail without newline'].join('\n'));
const size = statSync(path).size;
const job = (pattern: RegExp, extra: Partial<GrepJob> = {}): GrepJob => ({ path, offset: 0, size, pattern, maxBytes: 8192, maxLine: 2000, ...extra });
const HOSTILE = /(a+)+$/;

describe('GrepRunner', () => {
    it('numbers the matching lines, without colour codes or carriage returns, the last line too', async () => {
        const outcome = await new GrepRunner().grep('c', job(/ok|tail/));
        assert.deepEqual(outcome, { done: true, shown: ['1: ok 1', '2: not ok 2 - red', '4: ok 3', '5: tail without newline'], matches: 4 });
    });

    it('from an offset, searches only what follows it and numbers lines from the log\'s start, as a read by line does', async () => {
        const outcome = await new GrepRunner().grep('c', job(/ok/, { offset: 5 }));
        assert.deepEqual(outcome, { done: true, shown: ['2: not ok 2 - red', '4: ok 3'], matches: 2 });
    });

    it('with context: the lines around each match as "N- ", groups apart by "--", overlapping ones merged', async () => {
        writeFileSync(join(dir, 'ctx'), ['a', 'b', 'HIT 1', 'c', 'd', 'e', 'f', 'HIT 2', 'g', 'HIT 3', 'h'].join('\n'));
        const ctx = join(dir, 'ctx');
        const outcome = await new GrepRunner().grep('c', { path: ctx, offset: 0, size: statSync(ctx).size, pattern: /HIT/, context: 1, maxBytes: 8192, maxLine: 2000 });
        assert.deepEqual(outcome, { done: true, shown: ['2- b', '3: HIT 1', '4- c', '--', '7- f', '8: HIT 2', '9- g', '10: HIT 3', '11- h'], matches: 3 });
    });

    it('stops a pattern still searching at the deadline, naming the line it was on, while the main thread goes on', async () => {
        let turns = 0;
        const ticking = setInterval(() => turns++, 1);
        try {
            const outcome = await new GrepRunner(200).grep('c', job(HOSTILE));
            assert.deepEqual(outcome, { done: false, line: 3 });
            assert.ok(turns > 0, 'timers ran on the main thread during the search');
        } finally {
            clearInterval(ticking);
        }
    });

    it('refuses a third search of one caller at once, while another caller is still served', async () => {
        const runner = new GrepRunner(200);
        const first = runner.grep('alice', job(HOSTILE));
        const second = runner.grep('alice', job(HOSTILE));
        await assert.rejects(runner.grep('alice', job(/ok/)), (err: Error) => err instanceof GrepBusy && /2 grep searches of yours are still running/.test(err.message));
        const bob = runner.grep('bob', job(/tail/));
        assert.deepEqual(await bob, { done: true, shown: ['5: tail without newline'], matches: 1 });
        assert.deepEqual(await Promise.all([first, second]), [
            { done: false, line: 3 },
            { done: false, line: 3 },
        ]);
        // Once the caller's searches ended, it may search again.
        assert.equal((await runner.grep('alice', job(/ok 1/))).done, true);
    });

    it('a missing log rejects with the reason', async () => {
        await assert.rejects(new GrepRunner().grep('c', job(/x/, { path: join(dir, 'none') })), /ENOENT/);
    });
});
