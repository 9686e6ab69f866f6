/** The shared stopper on driven time, over a process table the test holds: signals in order, bounds, survivors named, one scan for many stops. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProcessTable, ScannedProcess } from '../../../../server/src/platform/processTable.js';
import { GroupStopper, KILL_WAIT_MS, type StopReport, type Survivor } from '../../../../server/src/commands/stopper.js';
import { ManualClock } from '../../../support/manualClock.js';

interface Proc {
    pid: number;
    pgrp: number;
    marker?: string;
    /** Ignores SIGTERM. */
    deaf?: boolean;
    /** Survives SIGKILL too (uninterruptible sleep, another user's process). */
    unkillable?: boolean;
    /** Dead, not reaped: answers a signal 0, absent from a scan. */
    zombie?: boolean;
    exit?: () => void;
}

/** A machine's processes as the stopper sees them, with every signal and scan counted. */
class Table implements ProcessTable {
    readonly procs = new Map<number, Proc>();
    readonly sent: string[] = [];
    scans = 0;
    probes = 0;

    /** Adds a process; `exited` resolves when a signal ends it. */
    add(proc: Proc): { exited: Promise<void> } {
        this.procs.set(proc.pid, proc);
        return { exited: new Promise(resolve => (proc.exit = resolve)) };
    }

    signal(target: number, signal: NodeJS.Signals | 0): boolean {
        const hit = target < 0 ? [...this.procs.values()].filter(p => p.pgrp === -target) : [this.procs.get(target)].filter(p => p !== undefined);
        if (signal === 0) {
            this.probes += 1;
            return hit.length > 0;
        }
        this.sent.push(`${signal} ${target}`);
        for (const proc of hit) {
            if (!proc.zombie && (signal === 'SIGKILL' ? !proc.unkillable : !proc.deaf)) {
                this.procs.delete(proc.pid);
                proc.exit?.();
            }
        }
        return hit.length > 0;
    }

    scan(): Promise<ScannedProcess[]> {
        this.scans += 1;
        return Promise.resolve([...this.procs.values()].filter(p => !p.zombie).map(({ pid, pgrp, marker }) => ({ pid, pgrp, marker })));
    }

    startTimeOf(): number {
        return 0;
    }

    commandOf(pid: number): string {
        return this.procs.has(pid) ? `prog-${pid}` : '';
    }
}

/** The stop's result and the virtual time it took. */
async function timed(clock: ManualClock, done: Promise<StopReport>, limitMs = 60_000): Promise<{ survivors: Survivor[]; unconfirmed?: string; ms: number }> {
    const start = clock.now();
    let report: StopReport | undefined;
    void done.then(value => (report = value));
    while (report === undefined && clock.now() - start < limitMs) {
        await clock.tick(10);
    }
    assert.ok(report, `the stop ended within ${limitMs} ms`);
    return { ...report, ms: clock.now() - start };
}

describe('group stopper', () => {
    it('a descendant that left the group gets SIGTERM with it; both gone, the stop ends at once', async () => {
        const clock = new ManualClock();
        const table = new Table();
        const { exited } = table.add({ pid: 100, pgrp: 100, marker: 'run-a' });
        table.add({ pid: 200, pgrp: 200, marker: 'run-a' });
        table.add({ pid: 300, pgrp: 300, marker: 'other-run' });
        const { survivors, ms } = await timed(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'run-a', leaderExited: exited, since: 0, graceMs: 5000 }));
        assert.deepEqual(survivors, []);
        assert.ok(ms <= 50, `${ms} ms`);
        assert.deepEqual(table.sent, ['SIGTERM -100', 'SIGTERM 200']);
        assert.deepEqual([...table.procs.keys()], [300], 'another run’s process is left alone');
    });

    it('what ignores SIGTERM gets SIGKILL after the grace: group and strays, and those started during the grace', async () => {
        const clock = new ManualClock();
        const table = new Table();
        const { exited } = table.add({ pid: 100, pgrp: 100, marker: 'r', deaf: true });
        table.add({ pid: 101, pgrp: 100, marker: 'r', deaf: true });
        table.add({ pid: 200, pgrp: 200, marker: 'r', deaf: true });
        const stopper = new GroupStopper(clock, table);
        const done = stopper.stop({ pgid: 100, marker: 'r', leaderExited: exited, since: 0, graceMs: 3000 });
        await clock.tick(1000);
        table.add({ pid: 201, pgrp: 201, marker: 'r', deaf: true });
        const { survivors, ms } = await timed(clock, done);
        assert.deepEqual(survivors, []);
        assert.ok(ms + 1000 >= 3000 && ms + 1000 <= 3000 + KILL_WAIT_MS, `ended ${ms + 1000} ms after SIGTERM`);
        assert.deepEqual(table.sent.slice(0, 3), ['SIGTERM -100', 'SIGTERM 200', 'SIGTERM 201']);
        assert.ok(table.sent.includes('SIGKILL -100') && table.sent.includes('SIGKILL 200') && table.sent.includes('SIGKILL 201'), table.sent.join(', '));
        assert.equal(table.procs.size, 0);
    });

    it('what survives SIGKILL is named, and the stop still ends within the grace and KILL_WAIT_MS', async () => {
        const clock = new ManualClock();
        const table = new Table();
        const { exited } = table.add({ pid: 100, pgrp: 100, marker: 'r' });
        table.add({ pid: 200, pgrp: 200, marker: 'r', deaf: true, unkillable: true });
        const { survivors, ms } = await timed(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'r', leaderExited: exited, since: 0, graceMs: 2000 }));
        assert.deepEqual(survivors, [{ pid: 200, command: 'prog-200' }]);
        assert.ok(ms <= 2000 + KILL_WAIT_MS + 20, `${ms} ms`);
    });

    it('a group left with only zombies counts as gone, without waiting for the grace', async () => {
        const clock = new ManualClock();
        const table = new Table();
        const { exited } = table.add({ pid: 100, pgrp: 100, marker: 'r' });
        table.add({ pid: 101, pgrp: 100, zombie: true });
        const { survivors, ms } = await timed(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'r', leaderExited: exited, since: 0, graceMs: 5000 }));
        assert.deepEqual(survivors, []);
        assert.ok(ms < 1000, `${ms} ms`);
    });

    it('a hundred stops at once share each scan of /proc, and a tick only asks each group (no scan per tick or per stop)', async () => {
        const clock = new ManualClock();
        const table = new Table();
        const stopper = new GroupStopper(clock, table);
        const stops = Array.from({ length: 100 }, (_, i) => {
            const pgid = 1000 + i;
            const { exited } = table.add({ pid: pgid, pgrp: pgid, marker: `r${i}`, deaf: true });
            return stopper.stop({ pgid, marker: `r${i}`, leaderExited: exited, since: 0, graceMs: 2000 });
        });
        const ends = await timed(clock, Promise.all(stops).then(all => ({ survivors: all.flatMap(report => report.survivors) })));
        assert.deepEqual(ends.survivors, []);
        // One when they began, one at SIGKILL, and a rescan every 500 ms in between: the same for 1 stop or 100.
        assert.ok(table.scans <= 2 + Math.ceil(ends.ms / 500), `${table.scans} scans in ${ends.ms} ms`);
        assert.ok(table.probes <= 2 * 100 * (ends.ms / 20 + 2), `${table.probes} signal-0 probes`);
    });
});
