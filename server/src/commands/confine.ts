import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { within } from './spec.js';

/**
 * Whether `value`, opened relative to `cwd`, stays inside it once every symbolic link is followed
 * as the kernel follows them (`link/..` is the parent of the link's target, not `cwd`). A path
 * that does not exist yet counts by its deepest existing folder. Checked when the call is
 * validated, just before the command starts.
 */
export function resolvesInside(cwd: string, value: string): boolean {
    if (value === '' || isAbsolute(value)) {
        return false;
    }
    let root: string;
    try {
        root = realpathSync.native(cwd);
    } catch {
        return false;
    }
    const real = realPathOf(`${cwd}/${value}`);
    return real !== undefined && within(root, real);
}

/** The path with its links resolved, or undefined when the kernel could not open it as given. */
function realPathOf(path: string): string | undefined {
    try {
        return realpathSync.native(path);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
            return undefined;
        }
    }
    const trimmed = path.replace(/\/+$/, '');
    // Something is there that does not resolve: a dangling link, whose target may be anywhere.
    if (exists(trimmed)) {
        return undefined;
    }
    const slash = trimmed.lastIndexOf('/');
    const last = trimmed.slice(slash + 1);
    // `..` or `.` after a folder that does not exist: the kernel refuses it too.
    if (slash <= 0 || last === '..' || last === '.') {
        return undefined;
    }
    const parent = realPathOf(trimmed.slice(0, slash));
    return parent === undefined ? undefined : `${parent}/${last}`;
}

function exists(path: string): boolean {
    try {
        lstatSync(path);
        return true;
    } catch {
        return false;
    }
}
