/**
 * Every byte a command wrote is kept, through a real server: a test run that ends with
 * process.exit(1) right after printing (as jest, mocha and many scripts do), and a process killed
 * right after writing. Over a pipe or socket pair a Node child writes asynchronously and loses what
 * is still queued when it exits: the log of a 507-line run kept 171-180 lines in most runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';

const node = process.execPath;
const LINES = 507;
/** Long enough lines that the output passes any pipe's buffer (64 KiB) many times over. */
const PAD = 'x'.repeat(400);

interface Structured {
    status: string;
    exitCode: number | null;
    logLines: number;
    logPath: string;
    summary: string;
}

describe('command output: nothing is lost when the command exits or is killed right after writing', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-kept-')));
    const logDir = join(dir, 'logs');
    const server = new Server();

    before(async () => {
        const exits = join(dir, 'exits.js');
        writeFileSync(
            exits,
            `for (let n = 1; n <= ${LINES}; n++) process.stdout.write((n === 100 ? 'not ok 100 - adds numbers' : 'ok ' + n + ' - case ' + n) + ' ${PAD}\\n');\n` +
                `process.stderr.write('# fail 1\\n');\nprocess.exit(1);\n`,
        );
        const killed = join(dir, 'killed.js');
        writeFileSync(killed, `for (let n = 1; n <= ${LINES}; n++) process.stdout.write('line ' + n + ' ${PAD}\\n');\nprocess.kill(process.pid, 'SIGKILL');\n`);
        await server.open(
            commandsFile(dir, [
                { name: 'exits', description: 'Prints a test run, then process.exit(1).', command: [node, exits] },
                { name: 'killed', description: 'Prints, then is killed.', command: [node, killed] },
            ]),
            logDir,
        );
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    for (let run = 1; run <= 3; run++) {
        it(`process.exit(1) right after printing: every line is in the log and the last one in the result (run ${run})`, async () => {
            const { taskId } = await server.start('exits');
            const result = await server.result(taskId);
            const structured = result.structuredContent as unknown as Structured;
            assert.equal(structured.exitCode, 1);
            assert.equal(structured.logLines, LINES + 1, 'every line of stdout and stderr');
            const log = readFileSync(structured.logPath, 'utf8').split('\n');
            assert.match(log[LINES - 1]!, new RegExp(`^ok ${LINES} - case ${LINES} x+$`));
            assert.match(log[LINES]!, /^# fail 1$/);
            assert.match(structured.summary, /not ok 100 - adds numbers/);
            assert.match(structured.summary, new RegExp(`ok ${LINES} - case ${LINES}`), 'the last lines are the real last lines');
        });
    }

    it('killed right after writing: every line written is in the log', async () => {
        const { taskId } = await server.start('killed');
        const structured = (await server.result(taskId)).structuredContent as unknown as Structured;
        assert.equal(structured.logLines, LINES);
        assert.match(readFileSync(structured.logPath, 'utf8'), new RegExp(`\\nline ${LINES} x+\\n$`));
    });

    it('leaves no capture file behind: only the logs', () => {
        assert.deepEqual(
            readdirSync(logDir).filter(name => !name.endsWith('.log')),
            [],
        );
    });
});
