/**
 * A server killed without closing leaves its private log folder behind; the next server on the
 * machine removes it, and never a live server's. Each server here gets its own TMPDIR, so the
 * folders seen are this test's alone.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { commandsFile, Server } from './commandServer.js';

const node = process.execPath;

describe('log folders a dead server left behind', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'leftovers-')));
    const temp = join(dir, 'tmp');
    mkdirSync(temp);
    const file = commandsFile(dir, [{ name: 'hello', description: 'Prints hello.', command: [node, '-e', 'console.log("hello")'] }]);
    const servers: Server[] = [];
    const folders = () => readdirSync(temp).filter(name => name.startsWith('mcp-tasks-commands-'));

    const serve = async () => {
        const server = new Server();
        servers.push(server);
        await server.open(file, undefined, { TMPDIR: temp });
        return server;
    };
    after(async () => {
        await Promise.all(servers.map(s => s.client.close().catch(() => undefined)));
        rmSync(dir, { recursive: true, force: true });
    });

    it("a SIGKILLed server's folder, logs and all, is gone after the next start; a live server's, an unmarked one and the new server's own stay", async () => {
        const killed = await serve();
        const { taskId } = await killed.start('hello');
        await killed.result(taskId);
        const [left] = folders();
        assert.ok(left, 'the server made its folder');
        const owner = JSON.parse(readFileSync(join(temp, left, 'owner.json'), 'utf8')) as { pid: number };
        assert.equal(owner.pid, killed.transport.pid);
        assert.ok(readdirSync(join(temp, left)).some(name => name.endsWith('.log')), 'the run wrote its log there');
        process.kill(killed.transport.pid!, 'SIGKILL');
        await waitForExit(killed.transport.pid!);
        assert.ok(existsSync(join(temp, left)), 'SIGKILL gave it no chance to clean up');

        const unmarked = join(temp, 'mcp-tasks-commands-unmark');
        mkdirSync(unmarked);
        const live = await serve();
        await live.result((await live.start('hello')).taskId);
        await live.log.waitFor(new RegExp(`\\[commands\\] removed the log folder ${escape(join(temp, left))}, left by server process ${owner.pid}, which is no longer running`));
        assert.ok(!existsSync(join(temp, left)));

        const next = await serve();
        await next.client.ping();
        const remaining = folders();
        assert.equal(remaining.length, 3, `the live server's, the unmarked one and the new one's: ${remaining.join(', ')}`);
        assert.ok(remaining.includes('mcp-tasks-commands-unmark'));
        assert.ok(!next.log.lines.some(line => line.includes('removed the log folder')), 'nothing of a live server was removed');
    });

    it('on Linux, a folder whose pid now belongs to another process (started at another time) is removed', { skip: process.platform !== 'linux' && 'start times are read from /proc' }, async () => {
        const reused = join(temp, 'mcp-tasks-commands-reused');
        mkdirSync(reused);
        // Our own pid, as if a process of an earlier boot had held it: the start time differs.
        writeFileSync(join(reused, 'owner.json'), JSON.stringify({ pid: process.pid, start: 1, host: hostname() }));
        const server = await serve();
        await server.log.waitFor(/removed the log folder .*mcp-tasks-commands-reused, left by server process \d+/);
        assert.ok(!existsSync(reused));
    });
});

function escape(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function waitForExit(pid: number): Promise<void> {
    for (;;) {
        try {
            process.kill(pid, 0);
        } catch {
            return;
        }
        await new Promise(resolve => setImmediate(resolve));
    }
}
