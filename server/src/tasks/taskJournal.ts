import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { currentPlatform } from '../platform/index.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite.js';
import type { TaskRecord } from './types.js';

/** The file in the data folder that holds the tasks. */
export const TASKS_FILE = 'tasks.db';

/** Bumped when the tables change; a file of another version is refused with words, never rewritten. */
const SCHEMA_VERSION = 1;

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
 * The tasks of one data folder on disk (SQLite, WAL): every change a durable store makes, written
 * through as it happens, and at start the tasks of servers that are gone, taken over. Several
 * servers (several hosts on one machine) may share the file: each writes only its own tasks, and a
 * server takes over another's only once that process no longer runs (checked by pid and start
 * time, in one write transaction, so two servers starting at once never both take the same tasks).
 */
export class TaskJournal {
    private readonly insert: SqliteStatement;
    private readonly update: SqliteStatement;
    private readonly remove: SqliteStatement;
    private closed = false;

    private constructor(
        private readonly db: SqliteDatabase,
        readonly workerId: string,
        readonly path: string,
    ) {
        this.insert = db.prepare('INSERT INTO tasks (id, worker, record, outcome, expires_at) VALUES (?, ?, ?, NULL, ?)');
        this.update = db.prepare('UPDATE tasks SET record = ?, outcome = coalesce(?, outcome), expires_at = ? WHERE id = ?');
        this.remove = db.prepare('DELETE FROM tasks WHERE id = ?');
    }

    /**
     * Opens (or creates) the file in `dir`, readable by this user only, and registers this process
     * as worker `workerId`. Throws with words when the file cannot be used.
     */
    static open(DatabaseSync: new (path: string) => SqliteDatabase, dir: string, workerId: string): TaskJournal {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const path = join(dir, TASKS_FILE);
        // Created 0600 before SQLite opens it; its -wal and -shm files take the same mode.
        closeSync(openSync(path, 'a', 0o600));
        chmodSync(path, 0o600);
        const db = new DatabaseSync(path);
        try {
            db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
            const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
            if (version !== 0 && version !== SCHEMA_VERSION) {
                throw new Error(`${path} was written by another version of mcp-tasks (schema ${version}, this one reads ${SCHEMA_VERSION}); give this server another --data-dir, or remove the file to start afresh`);
            }
            db.exec(
                'CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, worker TEXT NOT NULL, record TEXT NOT NULL, outcome TEXT, expires_at INTEGER NOT NULL);' +
                    'CREATE INDEX IF NOT EXISTS tasks_worker ON tasks (worker);' +
                    'CREATE TABLE IF NOT EXISTS workers (id TEXT PRIMARY KEY, pid INTEGER NOT NULL, start INTEGER NOT NULL, host TEXT NOT NULL);' +
                    `PRAGMA user_version = ${SCHEMA_VERSION};`,
            );
            const me: WorkerIdentity = { pid: process.pid, start: currentPlatform.processTable.startTimeOf(process.pid), host: hostname() };
            db.prepare('INSERT OR REPLACE INTO workers (id, pid, start, host) VALUES (?, ?, ?, ?)').run(workerId, me.pid, me.start, me.host);
        } catch (err) {
            db.close();
            throw err;
        }
        return new TaskJournal(db, workerId, path);
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
            .prepare('SELECT record, outcome, expires_at FROM tasks WHERE worker = ?')
            .all(this.workerId)
            .map(row => ({
                record: JSON.parse(String(row.record)) as TaskRecord,
                outcome: row.outcome === null || row.outcome === undefined ? undefined : String(row.outcome),
                expiresAt: Number(row.expires_at),
            }));
        tasks.sort((a, b) => a.record.seq - b.record.seq || a.record.createdAt.localeCompare(b.record.createdAt));
        return { tasks, from };
    }

    created(record: TaskRecord, expiresAt: number): void {
        this.insert.run(record.taskId, this.workerId, JSON.stringify(record), expiresAt);
    }

    /** A change of the record (and, once it has ended, its outcome). */
    changed(record: TaskRecord, expiresAt: number, outcome?: string): void {
        this.update.run(JSON.stringify(record), outcome ?? null, expiresAt, record.taskId);
    }

    deleted(taskId: string): void {
        if (!this.closed) {
            this.remove.run(taskId);
        }
    }

    /** Unregisters this worker: its tasks stay in the file, for the next server to take over. */
    close(): void {
        if (this.closed) {
            return;
        }
        this.closed = true;
        try {
            this.db.prepare('DELETE FROM workers WHERE id = ?').run(this.workerId);
        } finally {
            this.db.close();
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
