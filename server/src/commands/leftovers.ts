import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, type Logger } from '../util/log.js';
import { currentPlatform } from '../platform/index.js';
import { KEPT_SUFFIX } from './jobFile.js';

/** What every default command-log folder is named: `mkdtemp` adds six characters. */
export const LOG_FOLDER_PREFIX = 'mcp-tasks-commands-';
/** The file in a log folder that names the process it belongs to. */
export const OWNER_FILE = 'owner.json';

/** Who made a log folder: enough to tell that process from a later one given the same pid. */
interface FolderOwner {
    pid: number;
    /** When the process started, in the operating system's terms (0 where it cannot be read). */
    start: number;
    host: string;
}

/** Marks a fresh log folder as this process's, so a later server can tell a dead one's folder from a live one's. */
export function markOwner(dir: string): void {
    const owner: FolderOwner = { pid: process.pid, start: currentPlatform.processTable.startTimeOf(process.pid), host: hostname() };
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
}

/**
 * Removes the default log folders that servers of this user on this machine left when they died
 * without closing (SIGKILL, a crash, a power cut): a clean exit removes its own. A folder goes only
 * when its owner file names a process that no longer runs (on Linux, a process under the same pid
 * that started at another time is another process). A folder without an owner file is left alone:
 * it may be another server's between mkdtemp and the owner file, or an older version's. A folder
 * the user chose (--commands-log-dir) is theirs and kept, and so is one where a kept command lives
 * on (its mark, jobFile.ts). Resolves with the folders removed.
 */
export async function removeLeftoverLogFolders(log: Logger, root = tmpdir()): Promise<string[]> {
    let names: string[];
    try {
        names = (await readdir(root)).filter(name => name.startsWith(LOG_FOLDER_PREFIX));
    } catch {
        return [];
    }
    const removed: string[] = [];
    for (const name of names) {
        const dir = join(root, name);
        // A run its server let go lives on there (a kept command: its capture and log), for the server that re-adopts it.
        if (await holdsKeptRun(dir)) {
            continue;
        }
        const owner = await deadOwner(dir);
        if (owner === undefined) {
            continue;
        }
        try {
            await rm(dir, { recursive: true, force: true });
            removed.push(dir);
            log.info(`[commands] removed the log folder ${dir}, left by server process ${owner.pid}, which is no longer running`);
        } catch (err) {
            log.warn(`[commands] could not remove the log folder ${dir} left by server process ${owner.pid}: ${errorMessage(err)}`);
        }
    }
    return removed;
}

/** How long a kept run's mark keeps its folder when no server ever records the run's end (no server came back to its data folder). */
const KEPT_MARK_DAYS = 7;

/** Whether the folder holds the mark of a kept run (jobFile.ts) made within KEPT_MARK_DAYS. */
async function holdsKeptRun(dir: string): Promise<boolean> {
    try {
        const marks = (await readdir(dir)).filter(name => name.endsWith(KEPT_SUFFIX));
        for (const mark of marks) {
            if (Date.now() - (await lstat(join(dir, mark))).mtimeMs < KEPT_MARK_DAYS * 24 * 60 * 60 * 1000) {
                return true;
            }
        }
    } catch {
        // Gone meanwhile.
    }
    return false;
}

/** The folder's owner when it is ours to remove: this user's, this machine's, and no longer running. */
async function deadOwner(dir: string): Promise<FolderOwner | undefined> {
    try {
        const stat = await lstat(dir);
        if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) {
            return undefined;
        }
        const owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8')) as Partial<FolderOwner>;
        if (typeof owner.pid !== 'number' || owner.host !== hostname()) {
            return undefined;
        }
        return stillRunning(owner as FolderOwner) ? undefined : (owner as FolderOwner);
    } catch {
        return undefined;
    }
}

function stillRunning(owner: FolderOwner): boolean {
    if (!currentPlatform.processRunning(owner.pid)) {
        return false;
    }
    const start = currentPlatform.processTable.startTimeOf(owner.pid);
    // Where start times cannot be read, a live pid counts as the owner: keeping a dead
    // process's folder is the safe mistake.
    return owner.start === 0 || start === 0 || start === owner.start;
}
