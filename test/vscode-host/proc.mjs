// Child-process helpers. The VS Code host forks several Node processes
// (code-server's watcher, the server, extension hosts, pty host), so cleanup
// works on whole process trees, not single pids.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Runs a command to completion; rejects with its exit status on failure. */
export function runCommand(cmd, args, { env, cwd, stdio = ['ignore', 'inherit', 'inherit'] } = {}) {
    return new Promise((resolve, reject) => {
        const child = spawn(cmd, args, { env, cwd, stdio });
        child.on('error', reject);
        child.on('exit', (code, signal) => {
            if (code === 0) {
                resolve();
            } else {
                reject(new Error(`${cmd} ${args.join(' ')} exited with ${signal ?? code}`));
            }
        });
    });
}

/** Pids of every live descendant of `rootPid` (Linux /proc), children first. */
export function descendantsOf(rootPid) {
    const childrenOf = new Map();
    for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) {
            continue;
        }
        try {
            // The command name in field 2 may hold spaces or parens: parse after the last ')'.
            const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
            const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            const list = childrenOf.get(ppid) ?? [];
            list.push(Number(entry));
            childrenOf.set(ppid, list);
        } catch {
            // The process exited while we were reading: nothing to kill.
        }
    }
    const found = [];
    const walk = (pid) => {
        for (const child of childrenOf.get(pid) ?? []) {
            walk(child);
            found.push(child);
        }
    };
    walk(rootPid);
    return found;
}

function isAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

function signalAll(pids, groupLeader, signal) {
    // The group catches everything code-server forked; the explicit pids also catch
    // processes that left the group with setsid (terminals started by node-pty).
    try {
        process.kill(-groupLeader, signal);
    } catch {
        // The group is already gone.
    }
    for (const pid of pids) {
        try {
            process.kill(pid, signal);
        } catch {
            // Already gone.
        }
    }
}

/**
 * Ends a child spawned with `detached: true` together with everything it started:
 * SIGTERM first so code-server can shut its extension hosts down, SIGKILL after `graceMs`.
 */
export async function killTree(child, graceMs = 3000) {
    if (!child.pid) {
        return;
    }
    const pids = [child.pid, ...descendantsOf(child.pid)];
    signalAll(pids, child.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (pids.some(isAlive) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
    }
    // Pick up anything forked during shutdown before the final blow.
    const late = pids.filter(isAlive).flatMap((pid) => [pid, ...descendantsOf(pid)]);
    signalAll(late, child.pid, 'SIGKILL');
}
