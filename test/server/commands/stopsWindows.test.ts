/**
 * The Windows counterparts of the tree-stop tests (stops.test.ts, and commands.test.ts's grandchildren):
 * no process groups and no signals there, so a cancel ends the tree with `taskkill /T /F` and goes on
 * through parent links; where no process list can be read it says it could not confirm the end.
 * Real node.exe trees through a real server; they run on the hosted matrix's Windows runner (Wine's
 * taskkill has no /T, so the Wine lane only checks that the direct child ends).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processRunning } from '../../../server/src/platform/index.js';
import { onlyOn } from '../../support/platforms.js';
import { waitUntil } from '../../support/wait.js';
import { commandsFile, Server } from './commandServer.js';

const node = process.execPath;
const chain = resolve(__dirname, '../fixtures/commands/chain.js');
const windowsOnly = onlyOn(['win32'], 'these are the Windows stops (taskkill /T, parent links); stops.test.ts holds the POSIX ones');

/** Ends what a failed test left (TerminateProcess on Windows), so no tree outlives the suite. */
function sweep(pids: number[]): void {
    for (const pid of pids.filter(processRunning)) {
        try {
            process.kill(pid);
        } catch {
            // Gone meanwhile.
        }
    }
}

describe('command stops on Windows: the whole tree', windowsOnly, () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-stops-win-')));
    const server = new Server();
    const strays: number[] = [];

    before(async () => {
        // A batch file as npm.cmd is one: cmd.exe runs it, node runs under cmd.exe.
        const batch = join(dir, 'chain.cmd');
        writeFileSync(batch, `@"${node}" "${chain}" 2\r\n`);
        await server.open(
            commandsFile(dir, [
                { name: 'chain', description: 'Three node processes, each the parent of the next.', command: [node, chain, '2'] },
                { name: 'detached', description: 'Three node processes, the lower two detached.', command: [node, chain, '2', 'detached'] },
                { name: 'batch', description: 'A batch file whose node starts two more.', command: [batch] },
            ]),
            join(dir, 'logs'),
        );
    });
    after(async () => {
        sweep(strays);
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    for (const name of ['chain', 'detached', 'batch']) {
        it(`${name}: cancel ends every process of the tree before it answers`, async () => {
            const { taskId, token } = await server.start(name);
            const pids = await server.pids(token);
            strays.push(...pids);
            assert.equal(pids.length, 3);
            assert.ok(pids.every(processRunning), 'the whole tree runs before the cancel');
            const cancelled = await server.client.experimental.tasks.cancelTask(taskId);
            assert.equal(cancelled.status, 'cancelled');
            assert.deepEqual(pids.filter(processRunning), [], 'no process of the tree outlives the cancel');
            const task = await server.client.experimental.tasks.getTask(taskId);
            assert.doesNotMatch(task.statusMessage ?? '', /could not confirm/, 'a stop that saw the tree gone says nothing of doubt');
        });
    }
});

describe('command stops on Windows: no process list to read', windowsOnly, () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-stops-win-blind-')));
    const server = new Server();
    const strays: number[] = [];

    before(async () => {
        // A PATH without System32: no taskkill, wmic or PowerShell for the server to run. The key keeps
        // its Windows spelling (Path), so it replaces the inherited one rather than sitting beside it.
        const pathKey = Object.keys(process.env).find(key => key.toUpperCase() === 'PATH') ?? 'Path';
        await server.open(commandsFile(dir, [{ name: 'chain', description: 'Three node processes.', command: [node, chain, '2'] }]), join(dir, 'logs'), { [pathKey]: dirname(node) });
    });
    after(async () => {
        sweep(strays);
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('a cancel ends the process it started and says, in words, that it could not confirm the rest ended', async () => {
        const { taskId, token } = await server.start('chain');
        const pids = await server.pids(token);
        strays.push(...pids);
        const cancelled = await server.client.experimental.tasks.cancelTask(taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.equal(processRunning(pids[0]!), false, 'the process the server started is ended');
        const task = await waitUntil(async () => {
            const got = await server.client.experimental.tasks.getTask(taskId);
            return /could not confirm/.test(got.statusMessage ?? '') ? got : undefined;
        }, 'the stop to say it could not confirm');
        assert.match(task.statusMessage!, /^Stopped, but could not confirm that the processes it started ended/);
    });
});
