/** What a test runner's output says, as each format's reader gives it: tests ended, and what failed where. */

/** One failing test, as a person fixing it wants it: which, where, and what it said. */
export interface TestFailure {
    /** As the runner printed it; a mocha test with its suites (`math > divides`). */
    name: string;
    /** Where it failed: the first stack frame in the project's own code, else where the test is declared. */
    file?: string;
    line?: number;
    /** The error's message, its noise left out (a few lines at most). */
    message: string[];
    /** It failed only because something before it did (node:test cancels a suite's tests when its hook fails): shown after the others. */
    consequence?: boolean;
}

export type Outcome = 'passed' | 'failed';

/** Reads one format, one line at a time, in order. */
export interface FormatReader {
    /** The next line (no colours, no `\r`); whether it ended a test, and how. */
    line(text: string): Outcome | undefined;
    /** Inside something it must see line by line (a failure's details): a block with no `start` cannot be skipped now. */
    readonly reading: boolean;
    /** The output ended: anything still open is settled. */
    end(): void;
    readonly failures: Failures;
}

export interface TestFormat {
    name: string;
    /** A line that begins what the reader needs line by line (with the `m` flag): a block of output without one, while nothing is being read, can be skipped. */
    start: RegExp;
    /** Strings every line the counts depend on holds (those that end a test, and those that change how the next are read): output without any cannot change the counts. */
    needles: readonly string[];
    reader(): FormatReader;
}

/** At most this many failures are kept with their details (a status shows fewer); all are counted. */
const MAX_KEPT = 20;
/** And this many lines of each message, each cut to this many characters. */
export const MAX_MESSAGE_LINES = 6;
const MAX_LINE = 300;

/** The failures a reader found: the first MAX_KEPT kept, all counted. */
export class Failures {
    readonly kept: TestFailure[] = [];
    count = 0;

    add(failure: TestFailure): void {
        this.count++;
        if (this.kept.length < MAX_KEPT) {
            this.kept.push({ ...failure, name: cut(failure.name), message: failure.message.slice(0, MAX_MESSAGE_LINES).map(cut) });
        }
    }
}

function cut(text: string): string {
    return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}…` : text;
}
