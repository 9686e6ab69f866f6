import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

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

/**
 * A command's working directory, confined to the file's roots by where it really is, every
 * symbolic link on the way followed (a root is followed too), as `resolvesInside` confines path
 * parameters: a folder inside the roots may be a link to anywhere. Checked when the file loads and
 * again when a run starts, since a link can be pointed elsewhere after the file was read; the run
 * then starts in `real`, the folder that was checked, not in whatever the link names by then. A
 * folder that does not exist yet counts by its deepest existing parent (its absence is refused
 * elsewhere, in its own words).
 */
export function confineCwd(cwd: string, roots: readonly string[]): { real: string; refused?: undefined } | { refused: string } {
    const real = realPathOf(cwd);
    if (real === undefined) {
        return { refused: `${cwd} cannot be resolved (a symbolic link on the way leads nowhere, or a folder on the way cannot be read), so it cannot be confined to the declared roots` };
    }
    const realRoots = roots.map(root => realPathOf(root) ?? resolve(root));
    if (!realRoots.some(root => within(root, real))) {
        return { refused: `${cwd} really is ${real} (symbolic links followed), outside the declared roots (${roots.join(', ')})` };
    }
    return { real };
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
    if (slash < 0 || last === '' || last === '..' || last === '.') {
        return undefined;
    }
    // A folder right under `/` has `/` for parent.
    const parent = realPathOf(slash === 0 ? '/' : trimmed.slice(0, slash));
    return parent === undefined ? undefined : `${parent === '/' ? '' : parent}/${last}`;
}

function exists(path: string): boolean {
    try {
        lstatSync(path);
        return true;
    } catch {
        return false;
    }
}

/** Whether `path` is `root` or below it (both absolute). */
export function within(root: string, path: string): boolean {
    const r = resolve(root);
    const p = resolve(path);
    return p === r || p.startsWith(r.endsWith('/') ? r : r + '/');
}
