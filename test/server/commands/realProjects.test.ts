/**
 * A real open-source project's own test suite, with a one-line bug injected, run as a command task
 * through a real server: sprintf-js 1.0.3 as its npm tarball ships it (src/ and its mocha tests,
 * test/fixtures/projects/sprintf-js, BSD-3-Clause). mocha runs with --exit, so it ends with
 * process.exit() right after printing its failures, the way that lost output over a pipe. The
 * failed task's statusMessage (all VS Code shows of it) names the failing test, its file:line and
 * message, and the task; every line the run printed is in the log; read_output reads it by line,
 * around a grep hit, and follows it; a plain call still running is deferred (not an error) and
 * the identical call that retries it attaches to the same run.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';

const PROJECT = resolve(__dirname, '../../fixtures/projects/sprintf-js');
const MOCHA = resolve(__dirname, '../../../node_modules/mocha/bin/mocha.js');
/** The injected bug: %x formats in octal. */
const BUG = { file: 'src/sprintf.js', from: 'arg = arg.toString(16)\n', to: 'arg = arg.toString(8)\n' };
const FAILING = { name: 'should return formated strings for simple placeholders', at: 'test/test.js:26', message: "'ff' == '377'" };

describe('a real project (sprintf-js) with a bug injected, its mocha suite as a command task', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-real-')));
    const project = join(dir, 'sprintf-js');
    const server = new Server();
    const hold = join(dir, 'hold.cjs');
    const gate = join(dir, 'gate');
    const runs = join(dir, 'runs');
    const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
    const read = async (args: Record<string, unknown>) => text(await server.client.callTool({ name: 'read_output', arguments: args }));

    before(async () => {
        cpSync(PROJECT, project, { recursive: true });
        const source = readFileSync(join(project, BUG.file), 'utf8');
        assert.equal(source.split(BUG.from).length, 2, 'the line the bug goes into is there once');
        writeFileSync(join(project, BUG.file), source.replace(BUG.from, BUG.to));
        // held: the same suite, held before its first test until the test opens the gate; each run notes that it started.
        writeFileSync(
            hold,
            `const fs = require('node:fs');\nfs.appendFileSync(${JSON.stringify(runs)}, 'run\\n');\n` +
                `exports.mochaHooks = { beforeAll(done) { const wait = setInterval(() => { if (fs.existsSync(${JSON.stringify(gate)})) { clearInterval(wait); done(); } }, 20); } };\n`,
        );
        const file = commandsFile(dir, [
            { name: 'test', description: "Runs sprintf-js's tests.", command: [process.execPath, MOCHA, '--exit', 'test/test.js'], cwd: project },
            { name: 'held', description: "Runs sprintf-js's tests once the gate opens.", command: [process.execPath, MOCHA, '--exit', '--require', hold, '--timeout', '0', 'test/test.js'], cwd: project },
        ]);
        // A plain call still running after 300 ms goes on as a task.
        await server.open(file, join(dir, 'logs'), {}, ['--defer-after', '300ms']);
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it("the failed task's statusMessage names the failing test, its file:line and message, and the task; the log has every line to mocha's last", async () => {
        const { taskId, result, status } = await server.failedRun('test');
        assert.ok(status.includes(FAILING.name) && status.includes(FAILING.at) && status.includes(FAILING.message), `name, file:line and message:\n${status}`);
        assert.ok(status.includes(`Task ${taskId}: read_output with task_id "${taskId}" reads the whole output.`), status);
        assert.doesNotMatch(status, /should return formated strings for (complex placeholders|callbacks)/, 'passing tests are not named');

        // mocha's last lines, written just before its process.exit(), are in the log, in order.
        const { logPath } = result.structuredContent as { logPath: string };
        const log = readFileSync(logPath, 'utf8');
        assert.match(log, /2 passing \(\d+ms\)\n {2}1 failing\n[\s\S]*AssertionError \[ERR_ASSERTION\]: 'ff' == '377'[\s\S]*at Context\.<anonymous> \(test\/test\.js:26:16\)\n[^\n]*\n+$/);
    });

    it('read_output reads the run by line, shows what is around a grep hit, and follows it', async () => {
        const { taskId } = await server.start('test');
        await server.result(taskId);
        const hit = await read({ task_id: taskId, grep: 'AssertionError', context: 1 });
        const at = Number(/\n(\d+): {7}AssertionError/.exec(hit)?.[1]);
        assert.ok(at > 0, hit);
        assert.match(hit, new RegExp(`\\n${at - 1}- [^\\n]*\\n${at}: {7}AssertionError \\[ERR_ASSERTION\\]: 'ff' == '377'\\n${at + 1}- `), 'the lines around the hit, numbered');
        const byLine = await read({ task_id: taskId, from_line: at, lines: 2 });
        assert.match(byLine, new RegExp(`: lines ${at}-${at + 1}\\. More: read_output with from_line ${at + 2}\\.\\n${at}: {7}AssertionError`));
        // follow: from where this client's last read in order ended, only what is new; the run has ended, so nothing is.
        const first = await read({ task_id: taskId, follow: true, grep: 'passing|failing' });
        assert.match(first, /: 2 line\(s\) written since your last read match/);
        assert.match(await read({ task_id: taskId, follow: true, grep: 'passing|failing' }), /: 0 line\(s\) written since your last read match/);
    });

    it('a plain call still running is deferred, not an error, and the identical call that retries it attaches to the same run', async () => {
        const call = () => server.client.callTool({ name: 'held', arguments: {} });
        const first = await call();
        const retry = await call();
        const deferred = [first, retry].map(answer => {
            assert.notEqual(answer.isError, true, 'a deferral is not an error');
            const { taskId, status, next } = answer.structuredContent as { taskId: string; status: string; next: string };
            assert.equal(status, 'working');
            assert.match(next, new RegExp(`continues in the background as task ${taskId}[\\s\\S]*get_task`));
            return taskId;
        });
        writeFileSync(gate, '');
        const ends = await Promise.all(deferred.map(async taskId => {
            for (;;) {
                const got = await server.client.callTool({ name: 'get_task', arguments: { task_id: taskId, wait_seconds: 20 } });
                const { status } = got.structuredContent as { status: string };
                if (status !== 'working') {
                    return { status, text: text(got) };
                }
            }
        }));
        assert.deepEqual(ends.map(end => end.status), ['failed', 'failed']);
        for (const end of ends) {
            assert.ok(end.text.includes(FAILING.name) && end.text.includes(FAILING.at), end.text);
        }
        assert.equal(readFileSync(runs, 'utf8'), 'run\n', 'the suite ran once: the retry followed the first run');
    });
});
