/** What of `node:sqlite` the durable store uses (its types are not in every @types/node we build with). */
export interface SqliteStatement {
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    get(...params: unknown[]): Record<string, unknown> | undefined;
    all(...params: unknown[]): Record<string, unknown>[];
}

export interface SqliteDatabase {
    exec(sql: string): void;
    prepare(sql: string): SqliteStatement;
    close(): void;
}

type DatabaseSyncClass = new (path: string) => SqliteDatabase;

let loaded: DatabaseSyncClass | null | undefined;

/**
 * Node's built-in SQLite (`node:sqlite`), or undefined where this Node has none: Node 20, Node 22
 * before 22.13 without `--experimental-sqlite`, some Electron builds of VS Code. Detected, never
 * assumed. Its one-time ExperimentalWarning is dropped: in stdio mode stderr is the user's log, and
 * the warning says nothing they can act on.
 */
export function loadSqlite(): DatabaseSyncClass | undefined {
    if (loaded === undefined) {
        const emitWarning = process.emitWarning;
        process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
            const text = typeof warning === 'string' ? warning : warning.message;
            if (!/SQLite/i.test(text)) {
                (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
            }
        }) as typeof process.emitWarning;
        try {
            // getBuiltinModule works from the CommonJS bundle and the ESM package alike; a Node without it (before 20.16 and 22.3) has no SQLite either.
            const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.call(process, 'node:sqlite') as { DatabaseSync?: DatabaseSyncClass } | undefined;
            loaded = builtin?.DatabaseSync ?? null;
        } catch {
            loaded = null;
        } finally {
            process.emitWarning = emitWarning;
        }
    }
    return loaded ?? undefined;
}
