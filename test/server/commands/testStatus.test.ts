/**
 * A real node:test suite run as a command task, through a real server: the failed task's
 * statusMessage (tasks/get, all VS Code shows of it) names each failing test, its file:line and
 * its message, and the task; progress counts the tests as they end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';
import { posixOnly } from '../../support/platforms.js';

const node = process.execPath;

/** Five tests, two failing (each with its own message); the lines of the two failing asserts, found in the text. */
function suite(): { text: string; failing: { name: string; message: string; line: number }[] } {
    const text = [
        "import assert from 'node:assert/strict';",
        "import { test } from 'node:test';",
        "test('adds', () => assert.equal(1 + 1, 2));",
        "test('parses the header', () => {",
        "    const header = { date: undefined };",
        "    assert.ok(header.date, 'the header has no date');",
        '});',
        "test('subtracts', () => assert.equal(3 - 1, 2));",
        "test('rejects a bad date', () => {",
        "    assert.equal(Number.isNaN(Date.parse('2024-13-45')), false, 'month 13 was accepted');",
        '});',
        "test('top passes', () => {});",
    ].join('\n');
    const lineOf = (needle: string) => text.split('\n').findIndex(line => line.includes(needle)) + 1;
    return {
        text,
        failing: [
            { name: 'parses the header', message: 'the header has no date', line: lineOf("'the header has no date'") },
            { name: 'rejects a bad date', message: 'month 13 was accepted', line: lineOf("'month 13 was accepted'") },
        ],
    };
}

/** What a status must not carry: an error's properties, YAML markers, node's own frames, blank lines. */
const NOISE = /name: '|code: '|ERR_ASSERTION|operator:|generatedMessage|node:internal|^\s*---\s*$|^\s*\.\.\.\s*$|^\s*$/m;

describe('a failing test suite as a command task', posixOnly('the command clears NODE_TEST_CONTEXT with `env -u`, a POSIX program'), () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-test-status-')));
    const server = new Server();
    const { text, failing } = suite();

    before(async () => {
        writeFileSync(join(dir, 'dates.test.mjs'), text);
        // The server inherits this runner's NODE_TEST_CONTEXT, which would make node --test report to it instead of running the file.
        const nodeTest = ['env', '-u', 'NODE_TEST_CONTEXT', node, '--test'];
        const file = commandsFile(dir, [
            // Its output is a file, not a terminal: node prints TAP.
            { name: 'tap', description: 'Runs the tests.', command: [...nodeTest, 'dates.test.mjs'] },
            { name: 'spec', description: 'Runs the tests, spec reporter.', command: [...nodeTest, '--test-reporter=spec', 'dates.test.mjs'] },
        ]);
        await server.open(file, join(dir, 'logs'));
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    for (const tool of ['tap', 'spec']) {
        it(`${tool}: the failed task's statusMessage names each failing test, its file:line and message, and the task; no noise`, async () => {
            const { taskId } = await server.start(tool);
            await server.result(taskId);
            const task = await server.client.experimental.tasks.getTask(taskId);
            assert.equal(task.status, 'failed');
            const status = task.statusMessage ?? '';
            console.log(`# ${tool} status (${status.length} chars):\n${status.replace(/^/gm, '#   ')}`);
            assert.ok(status.length <= 1000, `${status.length} characters`);
            assert.match(status, /^exit 1 after [\d.]+ s: .*--test.*dates\.test\.mjs\n2 failing tests:\n/);
            for (const { name, message, line } of failing) {
                assert.ok(status.includes(`\n✖ ${name} (dates.test.mjs:${line})\n  ${message}\n`), `${name}, where and why:\n${status}`);
            }
            const footer = `\nTask ${taskId}: read_output with task_id "${taskId}" reads the whole output. Full log: ${join(dir, 'logs', `${tool}-${taskId}-`)}`;
            assert.match(status.slice(status.lastIndexOf('\n')), /^\n[^\n]+\.log$/, 'the log last');
            assert.ok(status.includes(footer), `the task and how to read the rest, then the log:\n${status}`);
            assert.doesNotMatch(status, NOISE);
            assert.doesNotMatch(status, /\b(adds|subtracts|top passes)\b/, 'passing tests are not named');
        });
    }

    it('progress counts the tests as they end: the counts only grow, the last says how many passed and failed, with the last test', async () => {
        const { taskId, token } = await server.start('tap');
        await server.result(taskId);
        const messages = server.progress.items.filter(p => p.progressToken === token).map(p => p.message ?? '');
        const counted = messages.filter(message => /^\d+ passed, \d+ failed so far — /.test(message));
        assert.ok(counted.length > 0, `counted progress among ${JSON.stringify(messages)}`);
        const totals = counted.map(message => message.match(/\d+/g)!.slice(0, 2).reduce((sum, n) => sum + Number(n), 0));
        assert.deepEqual(totals, [...totals].sort((a, b) => a - b), `counts only grow: ${JSON.stringify(counted)}`);
        // The last progress of a failed task is its status message; the last count comes before it.
        assert.equal(counted.at(-1), '3 passed, 2 failed so far — ok 5 - top passes');
    });
});
