import { isAbsolute, relative } from 'node:path';
import type { OutputScan } from './scan.js';
import type { TestFailure } from './testOutput/failure.js';
import type { TestReport } from './testOutput/testLines.js';

/**
 * VS Code shows a failed task's statusMessage and nothing else of it, to the user and the model:
 * this is what it must act on. Kept short, as a status is.
 */
const STATUS_MAX_CHARS = 1000;
/** Without a known test runner's failures: this many lines that match the failure pattern. */
const STATUS_MATCHES = 5;
/** The headline's share at most (a survivor note can make it long). */
const HEADLINE_CHARS = 400;
const NAME_CHARS = 120;
const MESSAGE_LINE_CHARS = 160;

export interface StatusFacts {
    /** What happened, in one line: "exit 1 after 88.6 s: npm test". */
    headline: string;
    scan: OutputScan;
    logPath: string;
    /** The task the run is; absent in an inline call. */
    taskId?: string;
    /** read_output is served: the status says to read the rest with it. */
    readOutput?: boolean;
    /** The command's folder: a failing test's file in it is shown relative to it. */
    cwd?: string;
}

/**
 * A failed run's status message: the headline; each failing test's name, file:line and message
 * when the output is a known test runner's (else the first lines matching the failure pattern);
 * the task's id and how to read the rest; the log. At most STATUS_MAX_CHARS.
 */
export function statusDigest({ headline, scan, logPath, taskId, readOutput, cwd }: StatusFacts): string {
    const read = taskId === undefined ? '' : readOutput ? `Task ${taskId}: read_output with task_id "${taskId}" reads the whole output. ` : `Task ${taskId}. `;
    const footer = `${read}Full log: ${logPath}`;
    const head = cut(headline, HEADLINE_CHARS);
    const room = STATUS_MAX_CHARS - head.length - footer.length - 2;
    const body = scan.tests ? failureLines(scan.tests, room, cwd) : matchingLines(scan, room);
    return [head, ...body, footer].join('\n');
}

/** The failing tests while they fit `room`: first each one's name, place and first line, then the rest of their messages. */
function failureLines(report: TestReport, room: number, cwd: string | undefined): string[] {
    // A test cancelled because its suite's hook failed says less than the hook's failure: after it.
    const failures = [...report.failures.filter(failure => !failure.consequence), ...report.failures.filter(failure => failure.consequence)];
    const title = `${report.count} failing test${report.count === 1 ? '' : 's'}:`;
    const more = (shown: number) => (shown < report.count ? [`… and ${report.count - shown} more`] : []);
    const size = (lines: string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
    const shown: { head: string; lines: string[]; rest: string[] }[] = [];
    for (const failure of failures) {
        const [first, ...rest] = failure.message.map(line => `  ${cut(line, MESSAGE_LINE_CHARS)}`);
        const entry = { head: `✖ ${cut(failure.name, NAME_CHARS)}${placeText(failure, cwd)}`, lines: first === undefined ? [] : [first], rest };
        const lines = [title, ...shown.flatMap(e => [e.head, ...e.lines]), entry.head, ...entry.lines, ...more(shown.length + 1)];
        if (size(lines) > room && shown.length > 0) {
            break;
        }
        shown.push(entry);
    }
    const all = () => [title, ...shown.flatMap(e => [e.head, ...e.lines]), ...more(shown.length)];
    for (const entry of shown) {
        for (const line of entry.rest) {
            entry.lines.push(line);
            if (size(all()) > room) {
                entry.lines.pop();
                break;
            }
        }
    }
    const lines = all();
    // Even one failure can be too long for a tiny room (a long log path): cut, not dropped.
    return size(lines) > room ? [cut(lines.join('\n'), Math.max(0, room - 1))] : lines;
}

function placeText(failure: TestFailure, cwd: string | undefined): string {
    if (failure.file === undefined) {
        return '';
    }
    const inCwd = cwd !== undefined && isAbsolute(failure.file) ? relative(cwd, failure.file) : undefined;
    const file = inCwd !== undefined && inCwd !== '' && !inCwd.startsWith('..') && !isAbsolute(inCwd) ? inCwd : failure.file;
    return ` (${file}:${failure.line})`;
}

/** No known test runner's failures: the first lines matching the failure pattern, else the last lines. */
function matchingLines(scan: OutputScan, room: number): string[] {
    const failing: string[] = [];
    for (const group of scan.groups) {
        for (const line of group) {
            if (line.match && failing.length < STATUS_MATCHES) {
                failing.push(line.text.trim());
            }
        }
    }
    const lines = failing.length > 0 ? failing : scan.tail.slice(-3).map(line => line.text.trim());
    const text = lines.join('\n');
    return text === '' ? [] : [cut(text, Math.max(0, room - 1))];
}

function cut(text: string, max: number): string {
    return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}
