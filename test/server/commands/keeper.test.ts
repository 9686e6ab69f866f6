/**
 * The keeper a command that may outlive its server runs under (platform/keeper.ts), as real
 * processes: it hands the server the command's exit code, or the signal that killed it; once its
 * lifeline closes (the server is gone) and nobody takes the run over within the window, it stops the
 * whole group, even when its folder is gone meanwhile (a failed redirection once ended the watchdog
 * and left the command running for good).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { KEEPER_SCRIPT } from '../../../server/src/platform/keeper.js';
import { processRunning } from '../../../server/src/platform/index.js';
import { posixOnly } from '../../support/platforms.js';
import { waitUntil } from '../../support/wait.js';

const dirs: string[] = [];
const groups: number[] = [];
after(() => {
    for (const pgid of groups) {
        try {
            process.kill(-pgid, 'SIGKILL');
        } catch {
            // Already gone.
        }
    }
    for (const dir of dirs) {
        rmSync(dir, { recursive: true, force: true });
    }
});

function folder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'keeper-'));
    dirs.push(dir);
    return dir;
}

/** The keeper running `argv`, its status file in `dir`, its lifeline held here. */
function keep(dir: string, windowSeconds: number, argv: string[]) {
    const status = join(dir, 'run.status');
    const child = spawn('/bin/sh', ['-c', KEEPER_SCRIPT, status, String(windowSeconds), ...argv], { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    groups.push(child.pid!);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
    return { child, status, exited, lifeline: child.stdio[3] as Socket };
}

/** Whether a process of group `pgid` runs `command` (ps: its group and command line). */
function groupRuns(pgid: number, command: string): boolean {
    return execFileSync('ps', ['-A', '-o', 'pgid=,args='], { encoding: 'utf8' })
        .split('\n')
        .some(line => {
            const [group, ...args] = line.trim().split(/\s+/);
            return Number(group) === pgid && args.join(' ') === command;
        });
}

describe('the keeper of a command that may outlive its server', posixOnly('Windows has no keeper: its commands stop with their server'), () => {
    it("exits with the command's code and leaves it in the status file", async () => {
        const dir = folder();
        const run = keep(dir, 600, ['sh', '-c', 'exit 3']);
        assert.deepEqual(await run.exited, { code: 3, signal: null });
        assert.equal(readFileSync(run.status, 'utf8'), '3\n');
        run.lifeline.destroy();
    });

    it('dies of the signal that killed the command, so its server sees that signal', async () => {
        const dir = folder();
        const run = keep(dir, 600, ['sh', '-c', 'kill -TERM $$']);
        assert.deepEqual(await run.exited, { code: null, signal: 'SIGTERM' });
        assert.equal(readFileSync(run.status, 'utf8'), '143\n');
        run.lifeline.destroy();
    });

    it('stops the group once its server is gone and nobody took the run over within the window, and marks it abandoned', async () => {
        const dir = folder();
        const run = keep(dir, 1, ['sleep', '60']);
        run.lifeline.destroy();
        await waitUntil(() => !processRunning(run.child.pid!) || undefined, 'the keeper to stop its group', { timeoutMs: 20_000 });
        assert.ok(existsSync(`${run.status}.abandoned`));
        assert.equal(existsSync(run.status), false, 'no exit status: the run was stopped');
    });

    it('still stops the group when its folder was removed meanwhile', async () => {
        const dir = folder();
        const run = keep(dir, 1, ['sleep', '60']);
        rmSync(dir, { recursive: true, force: true });
        run.lifeline.destroy();
        const { code, signal } = await run.exited;
        assert.ok(signal === 'SIGTERM' || code === 143, `the keeper was stopped with its group: ${code} ${signal}`);
    });

    it('waits while the server that took the run over lives (its pid in .held)', async () => {
        const dir = folder();
        const run = keep(dir, 1, ['sleep', '60']);
        // This test process is the server that took it over.
        writeFileSync(`${run.status}.held`, String(process.pid));
        run.lifeline.destroy();
        // The window has passed once the watchdog waits in its held loop (a `sleep 5` in the group,
        // where the window's own is `sleep 1`): it found the new server alive and kept the run.
        await waitUntil(() => groupRuns(run.child.pid!, 'sleep 5') || undefined, 'the watchdog waiting on the server that took the run over', { timeoutMs: 20_000 });
        assert.ok(processRunning(run.child.pid!), 'kept while its new server lives');
        assert.equal(existsSync(`${run.status}.abandoned`), false);
        process.kill(-run.child.pid!, 'SIGTERM');
        await run.exited;
    });
});
