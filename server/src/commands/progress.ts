import type { Clock } from '../util/clock.js';
import type { ToolContext } from '../tools/types.js';
import { percentOf } from './output.js';
import { stripAnsi } from './scan.js';
import type { CommandSpec } from './spec.js';
import { TestLines } from './testOutput/testLines.js';

/** At most this many progress notifications per second per task. */
export const PROGRESS_PER_SECOND = 4;
/** A line worth showing as progress: it has a letter or a digit in some script. */
const SAYS_SOMETHING = /[\p{L}\p{N}]/u;
/** A progress message with test counts fits one line of a host's progress text. */
const COUNTED_MAX_CHARS = 200;

export interface ProgressThrottle {
    /** The next line of output (its `\r` gone). */
    line(line: string): void;
    /** The last line still waiting goes out as soon as the rate allows: a client sees how the output ended. */
    dispose(): Promise<void>;
}

/**
 * Reports a running command's progress at most PROGRESS_PER_SECOND times a second, the last
 * line of each window winning. Once the output shows tests ending (a known runner's format), the
 * message counts them, `12 passed, 1 failed so far`, with the last test that ended: the lines in
 * between (a failure's YAML, a stack) are details, not progress.
 */
export function progressThrottle(spec: CommandSpec, ctx: ToolContext, clock: Clock): ProgressThrottle {
    // 5 % slack: timers fire late and frames leave a moment after, so sends spaced exactly 250 ms
    // apart can still arrive as 5 within one second at the client.
    const interval = 1050 / PROGRESS_PER_SECOND;
    const tests = new TestLines();
    let counting = false;
    let sent = 0;
    let lastAt = -Infinity;
    let percent: number | undefined;
    let pending: string | undefined;
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const flush = (): void => {
        timer = undefined;
        if (pending === undefined || ctx.signal.aborted) {
            return;
        }
        lastAt = clock.now();
        const message = counted(tests, pending);
        pending = undefined;
        sent += 1;
        if (percent === undefined) {
            ctx.progress(sent, undefined, message);
        } else {
            ctx.progress(percent, 100, message);
        }
    };
    return {
        line(line) {
            percent = percentOf(spec.progressPattern, line) ?? percent;
            const ended = tests.line(line.includes('\x1b') ? stripAnsi(line) : line);
            counting ||= ended;
            // A line with no letter or digit ("  ...", "-----", a spinner) tells a person nothing: the last line that does stays the progress.
            if (counting ? !ended : !SAYS_SOMETHING.test(line)) {
                return;
            }
            pending = line;
            if (timer === undefined) {
                timer = clock.setTimeout(flush, Math.max(0, lastAt + interval - clock.now()), undefined);
            }
        },
        dispose() {
            clock.clearTimeout(timer);
            timer = undefined;
            const wait = lastAt + interval - clock.now();
            if (pending === undefined || ctx.signal.aborted || wait <= 0) {
                flush();
                return Promise.resolve();
            }
            return new Promise<void>(resolve => clock.setTimeout(() => (flush(), resolve()), wait, undefined));
        },
    };
}

/** The line, after the tests counted so far when there are some, cut to fit. */
function counted(tests: TestLines, line: string): string {
    const counts = tests.counts();
    if (counts === undefined) {
        return line;
    }
    const text = `${counts.passed} passed, ${counts.failed} failed so far — ${stripAnsi(line).trim()}`;
    return text.length > COUNTED_MAX_CHARS ? `${text.slice(0, COUNTED_MAX_CHARS - 1)}…` : text;
}
