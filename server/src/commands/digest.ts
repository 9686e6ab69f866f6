import { MAX_GROUPS, type NumberedLine, type OutputScan } from './scan.js';

/**
 * The most a digest takes, in UTF-8 bytes. A result carries it twice (the first content block for
 * hosts that read text, `structuredContent.summary` for Claude Code, which reads only that on
 * success) and get_task adds its own few lines: 9 KB each keeps every answer under 24 KB.
 */
export const DIGEST_MAX_BYTES = 9 * 1024;
/** Shares of the budget: the lines that matter first, then how the output ended, then how it began. */
const MATCH_BYTES = 4 * 1024;
const TAIL_BYTES = 2.5 * 1024;
const HEAD_BYTES = 1024;

export interface DigestFacts {
    /** What happened, in one line: "exit 1 after 88.6 s", "timed out after 30 s". */
    headline: string;
    scan: OutputScan;
    logPath: string;
    /** For the read_output hint; absent in an inline call (no task to read). */
    taskId?: string;
}

/**
 * A command's end for a model, self-sufficient and bounded: what happened, the lines matching the
 * failure pattern with some context first, then the first and last lines, the log and how to read more.
 * Every line shown once; what was left out is counted.
 */
export function digest({ headline, scan, logPath, taskId }: DigestFacts): string {
    const parts: string[] = [headline];
    let shown = 0;
    const cut: string[] = [];
    const whole = scan.skippedBytes === 0 && scan.lines <= scan.head.length + scan.tail.length - overlap(scan);
    if (scan.lines === 0) {
        parts.push('(no output)');
    } else if (whole && fits(allLines(scan), TAIL_BYTES + HEAD_BYTES + MATCH_BYTES)) {
        parts.push(`Output (${plural(scan.lines, 'line')}):`, ...numbered(allLines(scan)));
        shown = scan.lines;
    } else {
        const head = take(scan.head, HEAD_BYTES, false);
        const tail = take(scan.tail, TAIL_BYTES, true);
        const covered = (line: NumberedLine) => line.n !== undefined && (head.some(h => h.n === line.n) || tail.some(t => t.n === line.n));
        // What the first or last lines show anyway is not shown twice: a group keeps the rest of
        // its lines, but not the context before a failing line shown there.
        const groups = scan.groups
            .map(group => {
                const first = group.findIndex(line => line.match);
                const before = first >= 0 && covered(group[first]!) ? first : 0;
                return group.filter((line, i) => i >= before && !covered(line));
            })
            .filter(group => group.length > 0);
        const { lines: matchLines, groupsShown, used, numbers } = takeGroups(groups, MATCH_BYTES, head.at(-1)?.n ?? 0);
        // What the matches left of their share goes to the last lines (a summary of the run is usually there).
        tail.splice(0, tail.length, ...take(scan.tail, TAIL_BYTES + Math.max(0, MATCH_BYTES - used), true).filter(line => line.n === undefined || !numbers.has(line.n)));
        // The failing lines first, as the tool's description promises (a model reading from the top
        // meets the failure before the passing start), then the first lines and the last ones.
        if (scan.matches > 0) {
            parts.push(`${plural(scan.matches, 'line')} matched the failure pattern${matchLines.length > 0 ? ', with context:' : ' (shown with the first or last lines)'}`, ...matchLines);
            if (groupsShown < groups.length) {
                cut.push(`${groups.length - groupsShown} more group(s) of matching lines`);
            }
            if (scan.groups.length === MAX_GROUPS) {
                cut.push(`matching lines after the first ${MAX_GROUPS} groups`);
            }
        }
        parts.push(`First lines:`, ...numbered(head));
        if (head.length < scan.head.length) {
            cut.push(`${scan.head.length - head.length} of the first lines`);
        }
        if (scan.skippedBytes > 0) {
            parts.push(`… ${kb(scan.skippedBytes)} not searched (the log is large) …`);
        }
        parts.push(`Last lines:`, ...numbered(tail));
        if (tail.length < scan.tail.length) {
            cut.push(`${scan.tail.length - tail.length} of the last lines`);
        }
        shown = head.length + tail.length;
    }
    const more = scan.lines > shown || scan.skippedBytes > 0;
    if (cut.length > 0) {
        parts.push(`Left out: ${cut.join('; ')}.`);
    }
    const read = taskId ? ` read_output with task_id "${taskId}" (grep, tail_lines, offset) reads any part of it.` : '';
    const dropped = scan.dropped ? `; ${plural(scan.dropped.lines, 'line')} (${kb(scan.dropped.bytes)}) in the middle left out to keep it within its limit` : '';
    parts.push(`Full log (${plural(scan.lines, 'line')}${scan.skippedBytes > 0 ? ' read' : ''}, ${kb(scan.bytes)}${dropped}): ${logPath}${more ? ';' : '.'}${more ? read || ' open it for the rest.' : ''}`);
    return capBytes(parts.join('\n'), DIGEST_MAX_BYTES);
}

function allLines(scan: OutputScan): NumberedLine[] {
    const last = scan.head.at(-1)?.n ?? 0;
    return [...scan.head, ...scan.tail.filter(line => (line.n ?? 0) > last)];
}

function overlap(scan: OutputScan): number {
    const last = scan.head.at(-1)?.n ?? 0;
    return scan.tail.filter(line => (line.n ?? 0) <= last).length;
}

function numbered(lines: NumberedLine[]): string[] {
    const width = String(lines.at(-1)?.n ?? '').length;
    return lines.map(line => `${line.n === undefined ? ''.padStart(width) : String(line.n).padStart(width)}| ${line.text}`);
}

function lineBytes(line: NumberedLine): number {
    return Buffer.byteLength(line.text) + 10;
}

function fits(lines: NumberedLine[], budget: number): boolean {
    return lines.reduce((sum, line) => sum + lineBytes(line), 0) <= budget;
}

/** As many lines as fit the budget, from the start (or from the end when `fromEnd`). */
function take(lines: NumberedLine[], budget: number, fromEnd: boolean): NumberedLine[] {
    const ordered = fromEnd ? [...lines].reverse() : lines;
    const kept: NumberedLine[] = [];
    let used = 0;
    for (const line of ordered) {
        used += lineBytes(line);
        if (used > budget) {
            break;
        }
        kept.push(line);
    }
    return fromEnd ? kept.reverse() : kept;
}

/** Whole groups while they fit, each line once, a gap marked between groups. */
function takeGroups(groups: NumberedLine[][], budget: number, after: number): { lines: string[]; groupsShown: number; used: number; numbers: Set<number> } {
    const lines: string[] = [];
    const numbers = new Set<number>();
    let used = 0;
    let lastN = after;
    let groupsShown = 0;
    for (const group of groups) {
        const fresh = group.filter(line => line.n === undefined || line.n > lastN);
        const bytes = fresh.reduce((sum, line) => sum + lineBytes(line), 0) + 4;
        if (used + bytes > budget && groupsShown > 0) {
            break;
        }
        const kept = used + bytes > budget ? take(fresh, budget - used, false) : fresh;
        if (kept[0]?.n !== lastN + 1) {
            lines.push('  …');
        }
        lines.push(...numbered(kept));
        kept.forEach(line => line.n !== undefined && numbers.add(line.n));
        used += bytes;
        lastN = kept.at(-1)?.n ?? lastN;
        groupsShown++;
    }
    return { lines, groupsShown, used, numbers };
}

function plural(n: number, word: string): string {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function kb(bytes: number): string {
    return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Cuts text to `max` UTF-8 bytes at a line end, saying so. */
export function capBytes(text: string, max: number): string {
    if (Buffer.byteLength(text) <= max) {
        return text;
    }
    const note = '\n… (cut to fit)';
    let cut = Buffer.from(text).subarray(0, max - note.length).toString('utf8');
    const newline = cut.lastIndexOf('\n');
    if (newline > 0) {
        cut = cut.slice(0, newline);
    }
    return cut.replace(/\uFFFD$/, '') + note;
}
