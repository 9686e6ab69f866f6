import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { currentPlatform } from '../platform/index.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite.js';
import type { TaskRecord } from './types.js';

/** The file in the data folder that holds the tasks. */
export const TASKS_FILE = 'tasks.db';

/**
 * Bumped when the tables change; a file of a later version is refused with words, never rewritten.
 * A file of version 1 (keyed by task id) is moved to 2 when opened.
 */
const SCHEMA_VERSION = 2;

/** A task as the file keeps it: its record, its outcome once it has ended, and when it expires (ms since the epoch). */
export interface KeptTask {
    record: TaskRecord;
    outcome?: string;
    expiresAt: number;
}

/** Who a worker row names: enough to tell that process from a later one given the same pid. */
interface WorkerIdentity {
    pid: number;
    start: number;
    host: string;
}

/**
 * How many WAL pages gather before SQLite copies them into the database file (a checkpoint, with
 * its fsyncs, run inside the commit that crosses the mark, on the event loop). At SQLite's default
 * of 1000 a loaded server checkpointed every 70 or so commits, half of a commit's time; at 10000
 * (40 MB of WAL at most) a created-and-finished task took about 10 % less time in the store.
 */
const WAL_CHECKPOINT_PAGES = 10_000;

/** What the WAL file is cut back to after a checkpoint: a quiet server does not keep 40 MB on disk. */
const WAL_KEPT_BYTES = 4 * 1024 * 1024;

/** A change waiting for the next write: the task's latest record, or its deletion. */
interface PendingWrite {
    record?: TaskRecord;
    outcome?: string;
    expiresAt: number;
}

/**
 * The tasks of one data folder on disk (SQLite, WAL): every change a durable store makes, and at
 * start the tasks of servers that are gone, taken over. Several servers (several hosts on one
 * machine) may share the file: each writes only its own tasks, and a server takes over another's
 * only once that process no longer runs (checked by pid and start time, in one write transaction,
 * so two servers starting at once never both take the same tasks).
 *
 * Changes are written together, in one transaction at the end of the event loop's turn that made
 * them (group commit: every request read in that turn, not one transaction per change), and a task
 * created and finished before its write is written once, as it ended. No timer holds a write back:
 * a loaded server's turns already gather its changes (32 creations in flight over stdio commit about
 * 32 rows at a time), and a 1 ms window that did so on purpose made every creation wait 1 to 2 ms
 * for its commit (docs/BENCHMARKS.md, the durable table). What a crash can lose: a SIGKILL or a
 * crash of the process loses the changes of the current turn (not yet committed), never a committed
 * one; a power loss or an OS crash can also lose the last commits before SQLite's next checkpoint
 * (synchronous=NORMAL in WAL mode does not fsync each commit). A creation is committed before it
 * is answered, and a read of a task with a change waiting awaits its commit, so what a client reads
 * is in the file; only a status notification can go out just before its change is committed. A change lost this
 * way leaves the task as it was, and a running one is failed, in words, by the next server.
 */
export class TaskJournal {
    private readonly insert: SqliteStatement;
    private readonly update: SqliteStatement;
    private readonly remove: SqliteStatement;
    /**
     * Each task's row, by task id. Rows are found by rowid, never by task id: ids are random, and an
     * index on them made every commit rewrite a page of that index per task, where rows written in
     * creation order share their pages. Reads are answered from memory: no lookup by id is needed.
     */
    private readonly rows = new Map<string, number | bigint>();
    private readonly pending = new Map<string, PendingWrite>();
    /** Settled when the pending changes are committed (rejected with the reason they could not be). */
    private flushed: Promise<void> | undefined;
    private settle: { resolve: () => void; reject: (err: unknown) => void } | undefined;
    private closed = false;

    private constructor(
        private readonly db: SqliteDatabase,
        readonly workerId: string,
        readonly path: string,
        /** Told when a window's changes (other than creations, whose callers hear it) could not be written. */
        private readonly onWriteError: (err: unknown, changes: number) => void,
    ) {
        this.insert = db.prepare('INSERT INTO tasks (id, worker, record, outcome, expires_at) VALUES (?, ?, ?, ?, ?)');
        this.update = db.prepare('UPDATE tasks SET record = ?, outcome = coalesce(?, outcome), expires_at = ? WHERE rowid = ?');
        this.remove = db.prepare('DELETE FROM tasks WHERE rowid = ?');
    }

    /**
     * Opens (or creates) the file in `dir`, readable by this user only, and registers this process
     * as worker `workerId`. Throws with words when the file cannot be used.
     */
    static open(DatabaseSync: new (path: string) => SqliteDatabase, dir: string, workerId: string, onWriteError: (err: unknown, changes: number) => void = () => {}): TaskJournal {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const path = join(dir, TASKS_FILE);
        // Created 0600 before SQLite opens it; its -wal and -shm files take the same mode.
        closeSync(openSync(path, 'a', 0o600));
        chmodSync(path, 0o600);
        const db = new DatabaseSync(path);
        try {
            // A checkpoint every WAL_CHECKPOINT_PAGES, not SQLite's 1000: see there.
            db.exec(
                'PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;' +
                    `PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${WAL_KEPT_BYTES};`,
            );
            const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
            if (version !== 0 && version !== 1 && version !== SCHEMA_VERSION) {
                throw new Error(`${path} was written by another version of mcp-tasks (schema ${version}, this one reads ${SCHEMA_VERSION}); give this server another --data-dir, or remove the file to start afresh`);
            }
            if (version === 1) {
                // The same columns, keyed by rowid: the rows move, oldest first, in one transaction.
                db.exec(
                    'BEGIN IMMEDIATE; ALTER TABLE tasks RENAME TO tasks_v1; DROP INDEX IF EXISTS tasks_worker;' +
                        'CREATE TABLE tasks (id TEXT NOT NULL, worker TEXT NOT NULL, record TEXT NOT NULL, outcome TEXT, expires_at INTEGER NOT NULL);' +
                        "INSERT INTO tasks (id, worker, record, outcome, expires_at) SELECT id, worker, record, outcome, expires_at FROM tasks_v1 ORDER BY json_extract(record, '$.createdAt');" +
                        `DROP TABLE tasks_v1; PRAGMA user_version = ${SCHEMA_VERSION}; COMMIT;`,
                );
            }
            db.exec(
                'CREATE TABLE IF NOT EXISTS tasks (id TEXT NOT NULL, worker TEXT NOT NULL, record TEXT NOT NULL, outcome TEXT, expires_at INTEGER NOT NULL);' +
                    // No index on the worker: only the take-over at start looks rows up by it (a scan, once),
                    // and keeping one cost every creation an entry in it: 3 µs of a creation's 24 µs
                    // (created and finished, in process). Files of earlier versions lose theirs here.
                    'DROP INDEX IF EXISTS tasks_worker;' +
                    'CREATE TABLE IF NOT EXISTS workers (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, start INTEGER NOT NULL, host TEXT NOT NULL);' +
                    `PRAGMA user_version = ${SCHEMA_VERSION};`,
            );
            const me: WorkerIdentity = { pid: process.pid, start: currentPlatform.processTable.startTimeOf(process.pid), host: hostname() };
            db.prepare('INSERT OR REPLACE INTO workers (id, pid, start, host) VALUES (?, ?, ?, ?)').run(workerId, me.pid, me.start, me.host);
        } catch (err) {
            db.close();
            throw err;
        }
        return new TaskJournal(db, workerId, path, onWriteError);
    }

    /**
     * Takes over the tasks of servers of this machine that no longer run (and of those that closed),
     * then returns every task this worker now holds, expired ones deleted. `now`: ms since the epoch.
     */
    adopt(now: number): { tasks: KeptTask[]; from: string[] } {
        const from: string[] = [];
        this.db.exec('BEGIN IMMEDIATE');
        try {
            const host = hostname();
            for (const row of this.db.prepare('SELECT id, pid, start, host FROM workers WHERE id != ?').all(this.workerId)) {
                if (row.host === host && !sameProcessRuns({ pid: Number(row.pid), start: Number(row.start), host })) {
                    this.db.prepare('DELETE FROM workers WHERE id = ?').run(row.id);
                }
            }
            // Tasks whose worker row is gone: a server that closed, or one found dead just above.
            for (const row of this.db.prepare('SELECT DISTINCT worker FROM tasks WHERE worker NOT IN (SELECT id FROM workers)').all()) {
                from.push(String(row.worker));
            }
            this.db.prepare('UPDATE tasks SET worker = ? WHERE worker NOT IN (SELECT id FROM workers)').run(this.workerId);
            this.db.prepare('DELETE FROM tasks WHERE worker = ? AND expires_at <= ?').run(this.workerId, now);
            this.db.exec('COMMIT');
        } catch (err) {
            this.db.exec('ROLLBACK');
            throw err;
        }
        const tasks = this.db
            .prepare('SELECT rowid, record, outcome, expires_at FROM tasks WHERE worker = ?')
            .all(this.workerId)
            .map(row => {
                const record = JSON.parse(String(row.record)) as TaskRecord;
                this.rows.set(record.taskId, row.rowid as number | bigint);
                return {
                    record,
                    outcome: row.outcome === null || row.outcome === undefined ? undefined : String(row.outcome),
                    expiresAt: Number(row.expires_at),
                };
            });
        tasks.sort((a, b) => a.record.seq - b.record.seq || a.record.createdAt.localeCompare(b.record.createdAt));
        return { tasks, from };
    }

    /** A new task: settled once it is committed, rejected if it could not be. */
    created(record: TaskRecord, expiresAt: number): Promise<void> {
        this.queue(record.taskId, { record, expiresAt });
        return this.flushed!;
    }

    /** A change of the record (and, once it has ended, its outcome), written with the others of this window. */
    changed(record: TaskRecord, expiresAt: number, outcome?: string): void {
        // An outcome queued earlier in this window stays: a later change without one must not drop it.
        this.queue(record.taskId, { record, outcome: outcome ?? this.pending.get(record.taskId)?.outcome, expiresAt });
    }

    deleted(taskId: string): void {
        this.queue(taskId, { expiresAt: 0 });
    }

    /**
     * Settled once the changes of `taskId` now waiting (all changes, without one) are committed,
     * whether or not they could be; undefined when none wait. A read that answers from memory
     * awaits it, so no client is told of a state a crash could still take back.
     */
    written(taskId?: string): Promise<void> | undefined {
        if (!this.flushed || (taskId !== undefined && !this.pending.has(taskId))) {
            return undefined;
        }
        return this.flushed.catch(() => {});
    }

    /** Writes what is pending now, rather than at the end of the window. */
    flush(): void {
        if (this.pending.size === 0 || this.closed) {
            return;
        }
        const writes = [...this.pending];
        this.pending.clear();
        const settle = this.settle!;
        this.settle = undefined;
        this.flushed = undefined;
        // Known only once committed: a rolled-back insert left no row.
        const inserted: [string, number | bigint][] = [];
        try {
            this.db.exec('BEGIN IMMEDIATE');
            try {
                for (const [taskId, write] of writes) {
                    const row = this.rows.get(taskId);
                    if (write.record && row !== undefined) {
                        this.update.run(JSON.stringify(write.record), write.outcome ?? null, write.expiresAt, row);
                    } else if (write.record) {
                        inserted.push([taskId, this.insert.run(taskId, this.workerId, JSON.stringify(write.record), write.outcome ?? null, write.expiresAt).lastInsertRowid]);
                    } else if (row !== undefined) {
                        this.remove.run(row);
                        this.rows.delete(taskId);
                    }
                }
                this.db.exec('COMMIT');
            } catch (err) {
                this.db.exec('ROLLBACK');
                throw err;
            }
            for (const [taskId, row] of inserted) {
                this.rows.set(taskId, row);
            }
        } catch (err) {
            this.onWriteError(err, writes.length);
            settle.reject(err);
            return;
        }
        settle.resolve();
    }

    /** Unregisters this worker, once what is pending is written: its tasks stay in the file, for the next server to take over. */
    close(): void {
        if (this.closed) {
            return;
        }
        this.flush();
        this.closed = true;
        try {
            this.db.prepare('DELETE FROM workers WHERE id = ?').run(this.workerId);
        } finally {
            this.db.close();
        }
    }

    private queue(taskId: string, write: PendingWrite): void {
        if (this.closed) {
            return;
        }
        this.pending.set(taskId, write);
        if (!this.flushed) {
            this.flushed = new Promise<void>((resolve, reject) => {
                this.settle = { resolve, reject };
            });
            // Only creators await it; an unobserved rejection must not end the process.
            this.flushed.catch(() => {});
            // After the I/O of this turn: every change its requests made goes into one commit.
            setImmediate(() => this.flush());
        }
    }
}

function sameProcessRuns(worker: WorkerIdentity): boolean {
    if (!currentPlatform.processRunning(worker.pid)) {
        return false;
    }
    // Where the start time can be read (Linux), a process under the same pid that started at another time is another process.
    const start = currentPlatform.processTable.startTimeOf(worker.pid);
    return worker.start === 0 || start === 0 || start === worker.start;
}
