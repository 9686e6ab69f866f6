/** What a command cannot do to the server: show its credentials, or end it through a log folder or working directory that is gone. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';

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

    it("a command that prints the server's environment from /proc shows none of its tokens", async () => {
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
