/**
 * A running command's log is held within --commands-log-limit: a command that writes 20 MB under a
 * 1 MiB limit leaves a log of its first lines, one marker and its latest lines, read while it runs
 * and after with the line numbers the command wrote them under; the capture file it writes to gives
 * back the disk space of what was read. Real server, real process.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../../support/wait.js';
import { CAPTURE_RELEASE_BYTES } from '../../../server/src/commands/capture.js';
import { commandsFile, Server } from './commandServer.js';

const LIMIT = 1024 * 1024;
/** About 20 MB of output: twenty times the limit. */
const LINES = 230_000;
const PAD = 'x'.repeat(80);
const line = (n: number) => `line ${n} ${PAD}`;

interface Structured {
    status: string;
    logPath: string;
    logBytes: number;
    logLines: number;
    summary: string;
}

describe('a running log within --commands-log-limit', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-limit-')));
    const logDir = join(dir, 'logs');
    const go = join(dir, 'go');
    const server = new Server();
    const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
    const read = async (args: Record<string, unknown>) => text(await server.client.callTool({ name: 'read_output', arguments: args }));

    before(async () => {
        // Writes its lines as fast as the file takes them, says so, and ends with one more line once the test says go.
        const flood = join(dir, 'flood.js');
        writeFileSync(
            flood,
            `const fs = require('node:fs');\nlet n = 0;\n` +
                `while (n < ${LINES}) { let chunk = ''; for (let i = 0; i < 1000 && n < ${LINES}; i++) chunk += 'line ' + (++n) + ' ${PAD}\\n'; fs.writeSync(1, chunk); }\n` +
                `fs.writeSync(1, 'done writing\\n');\n` +
                `const wait = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { clearInterval(wait); fs.writeSync(1, 'the last line\\n'); } }, 20);\n`,
        );
        await server.open(commandsFile(dir, [{ name: 'flood', description: 'Writes 20 MB.', command: [process.execPath, flood] }]), logDir, {}, ['--commands-log-limit', String(LIMIT)]);
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('stays within the limit while the command runs and after, with its first lines, the marker and its last lines, numbered as written', async () => {
        const { taskId } = await server.start('flood');
        // The server has copied everything written so far into the log once its last line reads there.
        await waitUntil(async () => (await read({ task_id: taskId, tail_lines: 1 })).endsWith('\ndone writing'), 'the log to reach "done writing"', { everyMs: 50 });
        const logPath = join(logDir, readdirSync(logDir).find(name => name.startsWith(`flood-${taskId}`) && name.endsWith('.log'))!);
        assert.ok(statSync(logPath).size <= LIMIT, `while running: ${statSync(logPath).size} bytes within ${LIMIT}`);
        // The file the command writes to keeps its offsets, but the disk space of what the server has read is given back.
        const capture = `${logPath}.capture`;
        assert.ok(statSync(capture).size > 20_000_000, 'the command wrote its 20 MB to the capture file');
        if (process.platform === 'linux') {
            const onDisk = () => statSync(capture).blocks * 512;
            await waitUntil(() => onDisk() <= 2 * CAPTURE_RELEASE_BYTES, 'the capture file to hold at most 8 MiB on disk', { everyMs: 50 });
        }

        assert.match(await read({ task_id: taskId, tail_lines: 2 }), new RegExp(`: lines ${LINES}-${LINES + 1}\\.\\n${line(LINES)}\\ndone writing$`), 'the last lines, numbered as written');
        assert.match(await read({ task_id: taskId, grep: `^line ${LINES - 10} ` }), new RegExp(`\\n${LINES - 10}: ${line(LINES - 10)}$`), 'grep gives the number it was written under');
        const first = await read({ task_id: taskId, from_line: LINES - 10, lines: 2 });
        assert.match(first, new RegExp(`\\n${LINES - 10}: ${line(LINES - 10)}\\n${LINES - 9}: ${line(LINES - 9)}$`), 'that number reads that line');
        assert.match(await read({ task_id: taskId, from_line: 1, lines: 1 }), new RegExp(`\\n1: ${line(1)}$`), 'the first line is kept');

        writeFileSync(go, '');
        const structured = (await server.result(taskId)).structuredContent as unknown as Structured;
        assert.equal(structured.status, 'completed');
        assert.equal(structured.logPath, logPath);
        assert.equal(structured.logLines, LINES + 2, 'the result counts every line written');
        const log = readFileSync(logPath, 'utf8').split('\n');
        assert.ok(statSync(logPath).size <= LIMIT, `at the end: ${statSync(logPath).size} bytes within ${LIMIT}`);
        assert.equal(log[0], line(1));
        const markers = log.filter(entry => entry.startsWith('[mcp-tasks]'));
        assert.equal(markers.length, 1, 'one marker');
        assert.match(markers[0]!, /^\[mcp-tasks\] \d+ line\(s\) \([\d.]+ MB\) of output left out here to keep this running log within 1\.0 MB \(--commands-log-limit\)/);
        assert.deepEqual(log.slice(-4), [line(LINES), 'done writing', 'the last line', '']);
        assert.match(structured.summary, new RegExp(`Full log \\(${LINES + 2} lines, [\\d.]+ MB; \\d+ lines \\([\\d.]+ MB\\) in the middle left out to keep it within its limit\\)`));
        assert.ok(existsSync(logPath), 'the log its task points at is still there');
    });
});
