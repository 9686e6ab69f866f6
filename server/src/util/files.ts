import { isAbsolute, resolve } from 'node:path';
import { errorMessage } from './log.js';

/**
 * Why `file` could not be read, in words a newcomer can act on: its absolute path (and, when it
 * was given relative, the folder it was looked for from, the usual surprise), then what is wrong.
 */
export function cannotRead(what: string, file: string, err: unknown): string {
    const where = isAbsolute(file) ? file : `${resolve(file)} (${file}, from the folder the server started in)`;
    switch ((err as NodeJS.ErrnoException).code) {
        case 'ENOENT':
            return `${what} ${where} does not exist`;
        case 'EACCES':
        case 'EPERM':
            return `${what} ${where} cannot be read: permission denied`;
        case 'EISDIR':
            return `${what} ${where} is a folder; give the file in it`;
        default:
            return `${what} ${where} cannot be read: ${errorMessage(err)}`;
    }
}
