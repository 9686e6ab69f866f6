/**
 * The per-client retention budget (issue 18): finished tasks count, by number and by what they
 * hold, and the tasks of ended sessions are held to one budget together. Real server processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpServerPerSuite, startHttpServer, type HttpServer } from '../../support/helpers.js';
import { RawHttp } from '../../support/rawHttp.js';

const OWNER = 'retention-owner-token-0123456789';
const TOKEN = 'retention-client-token-012345678';

/** Creates finished tasks (slow_compute for 0 s) until one is refused; returns how many and the refusal. */
async function fill(client: RawHttp, label: string, limit = 500): Promise<{ created: number; error?: { code: number; message: string; data?: unknown } }> {
    for (let created = 0; created < limit; created++) {
        const reply = await client.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label }, task: {} });
        if (reply.error) {
            return { created, error: reply.error as { code: number; message: string; data?: unknown } };
        }
    }
    return { created: limit };
}

async function listAll(owner: RawHttp): Promise<number> {
    let count = 0;
    let cursor: string | undefined;
    do {
        const page = await owner.result('tasks/list', cursor ? { cursor } : {});
        count += (page.tasks as unknown[]).length;
        cursor = page.nextCursor as string | undefined;
    } while (cursor);
    return count;
}

describe('retained tasks per client', () => {
    let server: HttpServer;

    before(async () => {
        // Bound to the session with either store (Redis binds to the token by default, and a token's
        // client is never gone): each session is a client of its own, gone when the session ends.
        server = await startHttpServer(['--token', TOKEN, '--owner-token', OWNER, '--bind', 'session', '--max-tasks-per-client', '5', '--max-retained-tasks-per-client', '20']);
    });
    after(async () => {
        await server.stop();
    });

    it('counts finished tasks: a client limited to 5 live tasks cannot pile up finished ones past the limit, which the error names', async () => {
        const client = new RawHttp(server.url, { authorization: `Bearer ${TOKEN}` });
        await client.initialize();
        const { created, error } = await fill(client, 'count');
        assert.equal(created, 20);
        assert.equal(error?.code, -32000);
        assert.match(error!.message, /limit 20, --max-retained-tasks-per-client/);
        assert.deepEqual(error!.data, { limit: 20, kind: 'retainedTasks' });
        await client.close();
    });

    it('holds the tasks of ended sessions to one budget together, oldest first', async () => {
        for (let i = 0; i < 3; i++) {
            const client = new RawHttp(server.url, { authorization: `Bearer ${TOKEN}` });
            await client.initialize();
            assert.equal((await fill(client, `gone-${i}`)).created, 20);
            await client.close();
        }
        const owner = new RawHttp(server.url, { authorization: `Bearer ${OWNER}` });
        await owner.initialize();
        // The first test's session (20) and these three (60) all ended: one budget's worth is left.
        assert.equal(await listAll(owner), 20);
        await owner.close();
    });
});

describe('retained bytes per client', () => {
    const server = httpServerPerSuite(['--max-retained-bytes-per-client', '20000']);

    it('counts what finished tasks hold (arguments, results) and names the limit', async () => {
        const client = new RawHttp(server.url);
        await client.initialize();
        const { created, error } = await fill(client, 'b'.repeat(200));
        assert.ok(created > 5 && created < 40, `${created} tasks of about 1 KB each in 20,000 bytes`);
        assert.equal(error?.code, -32000);
        assert.match(error!.message, /limit 20000 bytes, --max-retained-bytes-per-client/);
        await client.close();
    });
});
