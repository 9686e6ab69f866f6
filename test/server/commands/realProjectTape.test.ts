/**
 * A second real project: minimist 1.2.8 as its npm tarball ships it (index.js and its tape suite,
 * test/fixtures/projects/minimist, MIT), a one-line bug injected, run by tape as a command task
 * through a real server. tape writes TAP of its own (a `# test name` line, then `not ok N` with
 * `operator`, `expected`, `actual` and `at: … (file:line:col)`), unlike node:test's and mocha's: the
 * failed task's statusMessage still names the failing test, its file:line and what differed, and
 * the task; every line is in the log; read_output reads around a grep hit and follows; a run
 * stopped midway keeps every line it printed before the stop.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';

const PROJECT = resolve(__dirname, '../../fixtures/projects/minimist');
const TAPE = resolve(__dirname, '../../../node_modules/tape/bin/tape');
const TAPE_PACKAGE = resolve(__dirname, '../../../node_modules/tape');
/** The injected bug: hexadecimal numbers with a letter in them stay strings. */
const BUG = { file: 'index.js', from: '(/^0x[0-9a-f]+$/i)', to: '(/^0x[0-9]+$/i)' };

describe('a second real project (minimist) with a bug injected, its tape suite as a command task', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-tape-')));
    const project = join(dir, 'minimist');
    const server = new Server();
    const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
    const read = async (args: Record<string, unknown>) => text(await server.client.callTool({ name: 'read_output', arguments: args }));

    before(async () => {
        cpSync(PROJECT, project, { recursive: true });
        const source = readFileSync(join(project, BUG.file), 'utf8');
        assert.equal(source.split(BUG.from).length, 2, 'the line the bug goes into is there once');
        writeFileSync(join(project, BUG.file), source.replace(BUG.from, BUG.to));
        // tape where the project's tests require it from, as `npm install` would put it.
        mkdirSync(join(project, 'node_modules'));
        symlinkSync(TAPE_PACKAGE, join(project, 'node_modules', 'tape'), 'junction');
        const file = commandsFile(dir, [{ name: 'test', description: "Runs minimist's tests.", command: [process.execPath, TAPE, 'test/**/*.js'], cwd: project }]);
        await server.open(file, join(dir, 'logs'));
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it("the failed task's statusMessage names the failing test, its file:line and what differed, and the task; the log has tape's last line", async () => {
        const { taskId, result, status } = await server.failedRun('test');
        assert.ok(status.includes('nums › should be deeply equivalent'), `the failing test's name:\n${status}`);
        assert.ok(status.includes('test/num.js:15'), `its file:line:\n${status}`);
        assert.ok(status.includes("'0xdeadbeef'"), `what differed:\n${status}`);
        assert.ok(status.includes(`Task ${taskId}: read_output with task_id "${taskId}" reads the whole output.`), status);
        const { logPath } = result.structuredContent as { logPath: string };
        assert.match(readFileSync(logPath, 'utf8'), /\n# fail {2}2\n+$/, "tape's summary, to its last line");
    });

    it('read_output shows what is around a grep hit, reads from its line, and follows the run', async () => {
        const { taskId } = await server.start('test');
        await server.result(taskId);
        const hit = await read({ task_id: taskId, grep: '^not ok', context: 2 });
        assert.match(hit, /\n\d+- # nums\n\d+: not ok \d+ should be deeply equivalent\n\d+- {3}---\n\d+- {5}operator: deepEqual\n/, hit);
        const at = Number(/\n(\d+): not ok/.exec(hit)?.[1]);
        const byLine = await read({ task_id: taskId, from_line: at, lines: 2 });
        assert.match(byLine, new RegExp(`: lines ${at}-${at + 1}\\. More: read_output with from_line ${at + 2}\\.\\n${at}: not ok \\d+ should be deeply equivalent\\n${at + 1}: {3}---`), byLine);
        const first = await read({ task_id: taskId, follow: true, grep: '^# (pass|fail)' });
        assert.match(first, /: 2 line\(s\) written since your last read match/);
        assert.match(await read({ task_id: taskId, follow: true, grep: '^# (pass|fail)' }), /: 0 line\(s\) written since your last read match/);
    });
});
