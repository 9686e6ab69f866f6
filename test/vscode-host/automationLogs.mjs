// Saves the logs the workbench hands to codeAutomationExit(code, logs): an array
// of { relativePath, contents } with the extension host and server logs, the only
// record of a failed activation once the temp folder is gone.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

export function saveAutomationLogs(logs, logsDir) {
    if (!logsDir || !Array.isArray(logs)) {
        return 0;
    }
    let saved = 0;
    for (const entry of logs) {
        if (typeof entry?.relativePath !== 'string') {
            continue;
        }
        const target = resolve(logsDir, entry.relativePath);
        // The page is not trusted to pick paths outside logsDir.
        if (relative(logsDir, target).startsWith('..')) {
            continue;
        }
        mkdirSync(dirname(target), { recursive: true });
        const contents = entry.contents;
        writeFileSync(target, typeof contents === 'string' ? contents : Buffer.from(Object.values(contents ?? {})));
        saved++;
    }
    return saved;
}

