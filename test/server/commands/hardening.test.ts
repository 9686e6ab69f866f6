/** What a command cannot do to the server: show its credentials, end it through a log folder or working directory that is gone, or run outside the roots through a link. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';
import { linuxOnly } from '../../support/platforms.js';

const node = process.execPath;
const OWNER_TOKEN = 'owner-token-5f4e3d2c1b0a';
const CLIENT_TOKENS = ['client-token-aaaa1111', 'client-token-bbbb2222'];

interface RunData {
    summary: string;
    logPath: string;
}
const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

describe('command hardening', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-hard-')));
    const logDir = join(dir, 'logs');
    const work = join(dir, 'work');
    const server = new Server();

    before(async () => {
        mkdirSync(logDir);
        mkdirSync(work);
        const file = commandsFile(dir, [
            { name: 'environ', description: "Prints the server's environment.", command: [node, resolve(__dirname, '../fixtures/commands/environ.js')] },
            { name: 'inWork', description: 'Runs in a folder that may go.', command: [node, '-e', 'console.log(process.cwd())'], cwd: 'work' },
        ]);
        await server.open(file, logDir, { MCP_TASKS_OWNER_TOKEN: OWNER_TOKEN, MCP_TASKS_TOKEN: CLIENT_TOKENS.join(',') });
    });
    after(async () => {
        await server.client.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it("a command that prints the server's environment from /proc shows none of its tokens", linuxOnly('only Linux has /proc/<pid>/environ'), async () => {
        const result = await server.client.callTool({ name: 'environ', arguments: {} });
        const data = result.structuredContent as unknown as RunData;
        assert.match(readFileSync(data.logPath, 'utf8'), /^MCP_TASKS_OWNER_TOKEN=\*\*\*$/m, 'the variable is there, its value hidden');
        const log = readFileSync(data.logPath, 'utf8');
        for (const secret of [OWNER_TOKEN, ...CLIENT_TOKENS]) {
            assert.ok(!JSON.stringify(result).includes(secret) && !log.includes(secret), `${secret} is in neither result nor log`);
        }
    });

    it('a working directory that vanished fails that run in words; the server serves on', async () => {
        rmSync(work, { recursive: true });
        const result = await server.client.callTool({ name: 'inWork', arguments: {} });
        assert.equal(result.isError, true);
        assert.match(textOf(result), /the working directory .*work does not exist/);
        mkdirSync(work);
        const again = await server.client.callTool({ name: 'inWork', arguments: {} });
        assert.notEqual(again.isError, true, textOf(again));
    });

    it('a deleted log folder fails each run in words, and the server does not exit', async () => {
        rmSync(logDir, { recursive: true });
        for (let i = 0; i < 2; i++) {
            const result = await server.client.callTool({ name: 'environ', arguments: {} });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /^Not run: cannot write the log file .*: its folder .* does not exist/);
        }
        await server.client.ping();
        const { taskId } = await server.start('environ');
        const result = await server.result(taskId);
        assert.equal(result.isError, true);
        assert.equal((await server.client.experimental.tasks.getTask(taskId)).status, 'failed');
    });
});

describe('a cwd that is a symbolic link', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-cwdlink-')));
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-cwdlink-out-')));
    const root = join(dir, 'root');
    const link = join(root, 'here');
    const server = new Server();
    // The command leaves a file where it ran: the proof it ran, and where.
    const touch = [node, '-e', 'require("node:fs").writeFileSync("ran.txt", process.cwd())'];

    before(async () => {
        mkdirSync(join(root, 'inside'), { recursive: true });
        symlinkSync(join(root, 'inside'), link);
        const file = join(dir, 'commands.json');
        writeFileSync(file, JSON.stringify({ roots: ['root'], tools: [{ name: 'touch', description: 'Leaves ran.txt where it runs.', command: touch, cwd: 'root/here' }] }));
        await server.open(file, join(dir, 'logs'));
    });
    after(async () => {
        await server.client.close();
        [dir, outside].forEach(path => rmSync(path, { recursive: true, force: true }));
    });

    it('runs while the link leads inside the roots, and is refused once it is pointed outside, naming cwd and where it leads; nothing runs', async () => {
        const first = await server.client.callTool({ name: 'touch', arguments: {} });
        assert.notEqual(first.isError, true, textOf(first));
        assert.equal(readFileSync(join(root, 'inside', 'ran.txt'), 'utf8'), join(root, 'inside'));

        rmSync(link);
        symlinkSync(outside, link);
        const refused = await server.client.callTool({ name: 'touch', arguments: {} });
        assert.equal(refused.isError, true);
        assert.equal((refused.structuredContent as { status: string }).status, 'not_started');
        assert.match(textOf(refused), new RegExp(`^Not run: cwd ${link} really is ${outside} \\(symbolic links followed\\), outside the declared roots \\(${root}\\)`));
        assert.equal(existsSync(join(outside, 'ran.txt')), false, 'the command did not run outside');
    });
});
