/**
 * Process tables without /proc: macOS's `ps` table (run for real here: Linux's procps answers the
 * same options) and Windows's wmic / PowerShell table (driven with recorded output), and the
 * stopper finding a run's descendants through parent links on each.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { ProcessTable, ScannedProcess } from '../../../../server/src/platform/processTable.js';
import { GroupStopper, UNCONFIRMED_NOTE, type StopReport } from '../../../../server/src/commands/stopper.js';
import { systemClock } from '../../../../server/src/util/clock.js';
import { parsePs, psProcessRunning, psProcessTable } from '../../../../server/src/platform/psTable.js';
import { decodeOutput, parsePowerShell, parseWmic, windowsProcessTable } from '../../../../server/src/platform/windowsProcesses.js';
import { ManualClock } from '../../../support/manualClock.js';
import { waitUntil } from '../../../support/wait.js';
import { posixOnly } from '../../../support/platforms.js';

const WMIC =
    'CreationDate               Name                 ParentProcessId  ProcessId  \r\r\n' +
    '                           System Idle Process  0                0          \r\r\n' +
    '20261207053227.015000+060  node.exe             4                100        \r\r\n' +
    '20261207053228.500000+060  cmd.exe              100              104        \r\r\n';

describe('Windows process list', () => {
    it('reads wmic’s UTF-16 table and PowerShell’s lines, names with spaces included', () => {
        const rows = parseWmic(decodeOutput(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(WMIC, 'utf16le')])));
        assert.deepEqual(rows, [
            { pid: 0, ppid: 0, pgrp: 0, start: 0, command: 'System Idle Process' },
            { pid: 100, ppid: 4, pgrp: 100, start: Date.UTC(2026, 11, 7, 4, 32, 27, 15), command: 'node.exe' },
            { pid: 104, ppid: 100, pgrp: 104, start: Date.UTC(2026, 11, 7, 4, 32, 28, 500), command: 'cmd.exe' },
        ]);
        assert.deepEqual(parsePowerShell('100 4 7 node.exe\r\n104 100 9 cmd.exe\r\n'), [
            { pid: 100, ppid: 4, pgrp: 100, start: 7, command: 'node.exe' },
            { pid: 104, ppid: 100, pgrp: 104, start: 9, command: 'cmd.exe' },
        ]);
    });

    it('a tree stop runs taskkill /T /F; where it fails (Wine has no /T) the process itself is ended', async () => {
        const ran: string[] = [];
        const killed: number[] = [];
        const table = windowsProcessTable({
            run: (file, args) => (ran.push([file, ...args].join(' ')), Promise.resolve(file === 'taskkill' ? undefined : Buffer.from(WMIC))),
            kill: (pid, signal) => {
                if (signal !== 0) {
                    killed.push(pid);
                }
            },
        });
        assert.equal(table.groups, false);
        assert.equal(table.signal(-100, 'SIGTERM'), true);
        await new Promise(setImmediate);
        assert.deepEqual(ran, ['taskkill /T /F /PID 100']);
        assert.ok(table.runStartOf!(100) <= Date.now());
        assert.deepEqual(killed, [100]);
        const procs = await table.scan(0);
        assert.deepEqual(procs?.find(p => p.pid === 104), { pid: 104, ppid: 100, pgrp: 104, start: Date.UTC(2026, 11, 7, 4, 32, 28, 500) });
        assert.equal(table.commandOf(104), 'cmd.exe');
    });

    it('without wmic PowerShell lists the processes; with neither, the scan says it could not', async () => {
        const withPs = windowsProcessTable({ run: file => Promise.resolve(file === 'powershell' ? Buffer.from('7 1 0 a.exe\r\n') : undefined), kill: () => undefined });
        assert.deepEqual(await withPs.scan(0), [{ pid: 7, ppid: 1, pgrp: 7, start: 0 }]);
        const blind = windowsProcessTable({ run: () => Promise.resolve(undefined), kill: () => undefined });
        assert.equal(await blind.scan(0), undefined);
    });
});

interface Proc extends ScannedProcess {
    ppid: number;
    exit?: () => void;
}

/** A machine without /proc: processes known by pid, parent and (where there are groups) group. */
class ParentTable implements ProcessTable {
    readonly lineage = 'parent' as const;
    readonly procs = new Map<number, Proc>();
    readonly sent: string[] = [];
    blind = false;

    constructor(readonly groups: boolean) {}

    add(proc: Proc): Promise<void> {
        this.procs.set(proc.pid, proc);
        return new Promise(resolve => (proc.exit = resolve));
    }

    signal(target: number, signal: NodeJS.Signals | 0): boolean {
        const hit = target < 0 ? [...this.procs.values()].filter(p => (this.groups ? p.pgrp === -target : p.pid === -target)) : [this.procs.get(target)].filter(p => p !== undefined);
        if (signal !== 0) {
            this.sent.push(`${signal} ${target}`);
            for (const proc of hit) {
                this.procs.delete(proc.pid);
                proc.exit?.();
            }
        }
        return hit.length > 0;
    }

    scan(): Promise<ScannedProcess[] | undefined> {
        return Promise.resolve(this.blind ? undefined : [...this.procs.values()].map(({ pid, ppid, pgrp, start }) => ({ pid, ppid, pgrp, start })));
    }

    startTimeOf(): number {
        return 0;
    }

    commandOf(pid: number): string {
        return this.procs.has(pid) ? `prog-${pid}` : '';
    }
}

async function settle(clock: ManualClock, done: Promise<StopReport>): Promise<StopReport> {
    let report: StopReport | undefined;
    void done.then(value => (report = value));
    for (let i = 0; report === undefined && i < 1000; i++) {
        await clock.tick(10);
    }
    assert.ok(report, 'the stop ended');
    return report;
}

describe('stopper through parent links', () => {
    it('macOS: a child that left the group is found by its parent, and its own child after that parent exits', async () => {
        const clock = new ManualClock();
        const table = new ParentTable(true);
        const leader = table.add({ pid: 100, ppid: 1, pgrp: 100 });
        void table.add({ pid: 200, ppid: 100, pgrp: 200 });
        void table.add({ pid: 300, ppid: 1, pgrp: 300 });
        const report = await settle(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'unused', leaderExited: leader, since: 0, graceMs: 5000 }));
        assert.deepEqual(report, { survivors: [] });
        assert.deepEqual(table.sent, ['SIGTERM -100', 'SIGTERM 200']);
        assert.deepEqual([...table.procs.keys()], [300], 'an unrelated process is left alone');
    });

    it('Windows: no groups, so the whole tree is ended process by process, a child of an ended parent included', async () => {
        const clock = new ManualClock();
        const table = new ParentTable(false);
        const leader = table.add({ pid: 100, ppid: 4, pgrp: 100 });
        void table.add({ pid: 104, ppid: 100, pgrp: 104 });
        void table.add({ pid: 108, ppid: 104, pgrp: 108 });
        void table.add({ pid: 300, ppid: 4, pgrp: 300 });
        const report = await settle(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'unused', leaderExited: leader, since: 0, graceMs: 5000 }));
        assert.deepEqual(report, { survivors: [] });
        assert.deepEqual([...table.procs.keys()], [300]);
    });

    it('Windows: a process older than the run whose parent id a dead process of the run reused is not the run’s', async () => {
        const clock = new ManualClock();
        const table = new ParentTable(false);
        const leader = table.add({ pid: 100, ppid: 4, pgrp: 100, start: 5000 });
        void table.add({ pid: 104, ppid: 100, pgrp: 104, start: 6000 });
        void table.add({ pid: 50, ppid: 100, pgrp: 50, start: 1000 });
        const report = await settle(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'unused', leaderExited: leader, since: 4000, graceMs: 5000 }));
        assert.deepEqual(report, { survivors: [] });
        assert.deepEqual([...table.procs.keys()], [50], 'the older process with a stale parent id is left alone');
    });

    it('when no process list can be read the stop says so in words, never as a clean stop', async () => {
        const clock = new ManualClock();
        const table = new ParentTable(false);
        table.blind = true;
        const leader = table.add({ pid: 100, ppid: 4, pgrp: 100 });
        void table.add({ pid: 104, ppid: 100, pgrp: 104 });
        const report = await settle(clock, new GroupStopper(clock, table).stop({ pgid: 100, marker: 'unused', leaderExited: leader, since: 0, graceMs: 5000 }));
        assert.equal(report.unconfirmed, UNCONFIRMED_NOTE);
        assert.ok(table.procs.has(104), 'the child nobody could see is still there: hence the note');
    });
});

describe('the ps table, run for real (the macOS code path)', posixOnly('Windows has no ps and no process groups (its table is the fakes above, and test/server/commands/stopsWindows.test.ts)'), () => {
    const setsid = resolve(__dirname, '../../../server/fixtures/commands/setsid.js');

    it('lists this process with its parent and group, and reads start times and command lines', async () => {
        const table = psProcessTable();
        const procs = await table.scan(0);
        const me = procs?.find(p => p.pid === process.pid);
        assert.equal(me?.ppid, process.ppid);
        assert.ok(table.startTimeOf(process.pid) > 0);
        assert.match(table.commandOf(process.pid), /node/);
        assert.equal(psProcessRunning(process.pid), true);
        assert.ok(parsePs('  5 1 5 Z    Mon Dec  7 04:27:36 2026 [gone] <defunct>').length === 0, 'a zombie counts as gone');
    });

    it('a cancel ends the group and the setsid descendant that left it, found through ps alone', async () => {
        const leader = spawn(process.execPath, [setsid, 'ignore', 'wait'], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
        const [line] = (await once(leader.stdout, 'data')) as [Buffer];
        const pids = JSON.parse(/pids (\[.*\])/.exec(line.toString())![1]!) as number[];
        const table = psProcessTable();
        const exited = once(leader, 'exit');
        try {
            assert.ok(pids.every(psProcessRunning));
            const report = await new GroupStopper(systemClock, table).stop({ pgid: leader.pid!, marker: 'unused', leaderExited: exited, since: 0, graceMs: 2000 });
            assert.deepEqual(report, { survivors: [] });
            await waitUntil(() => !pids.some(psProcessRunning), 'leader and descendant gone');
        } finally {
            for (const pid of pids.filter(psProcessRunning)) {
                process.kill(pid, 'SIGKILL');
            }
        }
    });
});
