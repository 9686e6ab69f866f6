// The durable store in process, on a real SQLite file: a creation the file refuses leaves nothing
// behind in memory either (unless its work has started, which keeps it); a creation is answered once written, and a read of a changed task only
// once its change is; and every time the store keeps (expiry in the file, the take-over) follows its
// injected clock, not the machine's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, mock } from 'node:test';
import { RpcError } from '../../../server/src/rpc/errors.js';
import { DurableTaskStore } from '../../../server/src/tasks/durableStore.js';
import { loadSqlite } from '../../../server/src/tasks/sqlite.js';
import { TASKS_FILE } from '../../../server/src/tasks/taskJournal.js';
import { ManualClock } from '../../support/manualClock.js';
import { done, newTask } from '../../support/taskStores.js';

const DatabaseSync = loadSqlite();
const dirs: string[] = [];
const open: DurableTaskStore[] = [];

function folder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-durable-store-'));
    dirs.push(dir);
    return dir;
}

function store(dir: string, clock = new ManualClock(), onWriteError?: (err: unknown, changes: number) => void): DurableTaskStore {
    const opened = DurableTaskStore.open(DatabaseSync!, { dir, workerId: `w${open.length}`, clock, onWriteError }).store;
    open.push(opened);
    return opened;
}

/** Rows of the file as another connection sees them. */
function rows(dir: string): { id: string; status: string; outcome: unknown }[] {
    const db = new DatabaseSync!(join(dir, TASKS_FILE));
    try {
        return db.prepare('SELECT id, record, outcome FROM tasks').all().map(row => ({ id: String(row.id), status: (JSON.parse(String(row.record)) as { status: string }).status, outcome: row.outcome }));
    } finally {
        db.close();
    }
}

after(async () => {
    for (const s of open) {
        await s.close();
    }
    for (const dir of dirs) {
        rmSync(dir, { recursive: true, force: true });
    }
});

describe('DurableTaskStore on a real file', { skip: DatabaseSync ? false : `this Node.js (${process.version}) has no node:sqlite` }, () => {
    it('keeps nothing of a task the file refused, says why, and writes the next one', async () => {
        const dir = folder();
        const errors: string[] = [];
        const s = store(dir, new ManualClock(), err => errors.push(String(err)));
        // Another process's connection makes every insert fail, as a full disk would.
        const other = new DatabaseSync!(join(dir, TASKS_FILE));
        other.exec("CREATE TRIGGER refuse BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'no room left'); END;");
        await assert.rejects(s.create(newTask('a'), 10), (err: unknown) => {
            assert.ok(err instanceof RpcError);
            assert.match(err.message, /^Could not save the task to .*tasks\.db \(.*no room left\), so it was not started; call the tool again later$/);
            return true;
        });
        assert.deepEqual((await s.list({ clientKey: 'a', limit: 10 })).tasks, [], 'memory holds nothing the file has not');
        assert.equal(errors.length, 1);
        // Its live slot was given back: a limit of one still admits the next task.
        other.exec('DROP TRIGGER refuse');
        other.close();
        const kept = await s.create(newTask('a'), 1);
        assert.deepEqual(
            rows(dir).map(row => row.id),
            [kept.taskId],
        );
    });

    it('a task whose work starts at once: returned before its write, written once as it ended, and kept in memory if its write fails', async () => {
        const dir = folder();
        const errors: string[] = [];
        const s = store(dir, new ManualClock(), err => errors.push(String(err)));
        const task = await s.create(newTask('a'), 10, undefined, { startsAtOnce: true });
        assert.deepEqual(rows(dir), [], 'returned before its write');
        const written = s.written(task.taskId);
        assert.ok(written, 'its write is on its way');
        // Its work ends in the same turn, as a quick tool call's does.
        await s.finish(task.taskId, 'completed', done);
        await written;
        assert.deepEqual(rows(dir), [{ id: task.taskId, status: 'completed', outcome: JSON.stringify(done) }], 'one row, written as it ended');
        assert.equal(s.written(task.taskId), undefined, 'nothing waits once written');

        const other = new DatabaseSync!(join(dir, TASKS_FILE));
        other.exec("CREATE TRIGGER refuse BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'no room left'); END;");
        const kept = await s.create(newTask('a'), 10, undefined, { startsAtOnce: true });
        await s.written(kept.taskId);
        assert.equal(errors.length, 1, 'the failed write is reported');
        assert.equal((await s.get(kept.taskId))?.status, 'working', 'kept in memory: its work has begun');
        other.exec('DROP TRIGGER refuse');
        other.close();
        await s.finish(kept.taskId, 'completed', done);
        await s.get(kept.taskId);
        assert.deepEqual(
            rows(dir).map(row => [row.id, row.status]),
            [
                [task.taskId, 'completed'],
                [kept.taskId, 'completed'],
            ],
            'its next change writes it',
        );
    });

    it('answers a creation once it is in the file, and a read of a change only once that is', async () => {
        const dir = folder();
        const s = store(dir);
        const task = await s.create(newTask('a'), 10);
        assert.deepEqual(rows(dir), [{ id: task.taskId, status: 'working', outcome: null }]);
        await s.finish(task.taskId, 'completed', done);
        assert.deepEqual(rows(dir), [{ id: task.taskId, status: 'working', outcome: null }], 'not yet written: changes gather for a moment');
        assert.equal((await s.get(task.taskId))?.status, 'completed');
        assert.deepEqual(rows(dir), [{ id: task.taskId, status: 'completed', outcome: JSON.stringify(done) }], 'the read waited for the write');
    });

    it("writes the changes of one turn of the event loop in one transaction, without a timer's wait", async () => {
        const dir = folder();
        let transactions = 0;
        /** The real connection, counting the transactions the store begins. */
        class Counting extends DatabaseSync! {
            override exec(sql: string): void {
                transactions += /^BEGIN\b/.test(sql) ? 1 : 0;
                super.exec(sql);
            }
        }
        const opened = DurableTaskStore.open(Counting, { dir, workerId: 'counting', clock: new ManualClock() }).store;
        open.push(opened);
        const atStart = transactions;
        // As a loaded server's turn reads many requests: 40 creations, all answered by one commit.
        // No write waits on a timer: with setTimeout stopped, the creations and then the endings, made
        // right after that commit, are each written within a turn or two.
        mock.timers.enable({ apis: ['setTimeout'] });
        try {
            const created = await Promise.all(Array.from({ length: 40 }, () => opened.create(newTask('a'), 100)));
            assert.equal(transactions - atStart, 1, 'one transaction for the 40 creations of one turn');
            await Promise.all(created.map(task => opened.finish(task.taskId, 'completed', done)));
            for (let turn = 0; turn < 3; turn++) {
                await new Promise(resolve => setImmediate(resolve));
            }
            assert.equal(transactions - atStart, 2, 'one transaction for their 40 endings');
            assert.deepEqual(new Set(rows(dir).map(row => row.status)), new Set(['completed']));
            assert.equal(rows(dir).length, 40);
        } finally {
            mock.timers.reset();
        }
    });

    it('moves a file of the first schema (keyed by task id) to the rowid one, keeping its tasks', async () => {
        const dir = folder();
        const start = Date.parse('2020-01-01T00:00:00.000Z');
        const first = store(dir, new ManualClock(start));
        const task = await first.create(newTask('a', { ttl: 60_000 }), 10);
        const record = (await first.get(task.taskId))!;
        await first.close();
        // The same task as a server of schema 1 wrote it.
        const old = new DatabaseSync!(join(dir, TASKS_FILE));
        old.exec(
            'DROP TABLE tasks; DROP INDEX IF EXISTS tasks_worker;' +
                'CREATE TABLE tasks (id TEXT PRIMARY KEY, worker TEXT NOT NULL, record TEXT NOT NULL, outcome TEXT, expires_at INTEGER NOT NULL);' +
                'CREATE INDEX tasks_worker ON tasks (worker); PRAGMA user_version = 1;',
        );
        old.prepare('INSERT INTO tasks (id, worker, record, outcome, expires_at) VALUES (?, ?, ?, ?, ?)').run(task.taskId, 'gone', JSON.stringify(record), null, start + 60_000);
        old.close();

        const next = store(dir, new ManualClock(start + 1000));
        assert.equal((await next.get(task.taskId))?.status, 'failed', 'taken over from the dead worker, as any running task');
        await next.close();
        const db = new DatabaseSync!(join(dir, TASKS_FILE));
        try {
            assert.equal(Number(db.prepare('PRAGMA user_version').get()?.user_version), 2);
            assert.equal(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'tasks_v1'").get()?.n, 0);
            // No index on the tasks any more: each creation paid for an entry only the start-up scan used.
            assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks'").all(), []);
        } finally {
            db.close();
        }
        assert.deepEqual(rows(dir).map(row => [row.id, row.status]), [[task.taskId, 'failed']], 'one row, updated in place');
    });

    it('refuses a file of a later schema with words, and leaves it as it was', () => {
        const dir = folder();
        const later = new DatabaseSync!(join(dir, TASKS_FILE));
        later.exec('PRAGMA user_version = 9;');
        later.close();
        assert.throws(() => store(dir), /was written by another version of mcp-tasks \(schema 9, this one reads 2\); give this server another --data-dir/);
    });

    it('keeps a finished task until its TTL by the injected clock, and drops it after', async () => {
        const dir = folder();
        const start = Date.parse('2020-01-01T00:00:00.000Z');
        const first = store(dir, new ManualClock(start));
        const task = await first.create(newTask('a', { ttl: 60_000 }), 10);
        await first.finish(task.taskId, 'completed', done);
        await first.close();

        const within = store(dir, new ManualClock(start + 30_000));
        assert.equal((await within.get(task.taskId))?.status, 'completed');
        await within.close();

        const past = store(dir, new ManualClock(start + 61_000));
        assert.equal(await past.get(task.taskId), undefined);
        assert.deepEqual(rows(dir), [], 'the expired row is gone from the file too');
    });
});
