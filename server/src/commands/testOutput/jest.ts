import { isStackLine, messageLines, ownFrame, type Place } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * jest's default reporter: `✓ name` and `✕ name` as tests end (one test file, or `--verbose`;
 * with several files jest prints no line per test, so nothing is counted); then each failure as
 * `● suite › name`, its message, a code frame and the stack. Past jest's summary threshold of
 * files, `Summary of all failing tests` tells the same failures again: they are not read twice.
 */
export const jest: TestFormat = {
    name: 'jest',
    start: /^\s*● \S/m,
    needles: ['✓', '✕'],
    reader: () => new JestReader(),
};

const PASSED = /^\s*✓ \S/;
const FAILED = /^\s*✕ \S/;
const HEADER = /^\s*● (.+)$/;
/** A line of the code frame jest prints under the message: `  > 6 | code`, `    |   ^`. */
const CODE_FRAME = /^\s*>?\s*\d*\s\|/;
/** What ends a failure's details: the run's summary, or the next file's result. */
const AFTER = /^(?:Test Suites:|Tests:|PASS |FAIL )/;
const REPEAT = /^Summary of all failing tests/;

interface Open {
    name: string;
    message: string[];
    pastMessage: boolean;
    place?: Place;
}

class JestReader implements FormatReader {
    readonly failures = new Failures();
    private open?: Open;
    /** In the summary that repeats the failures. */
    private repeat = false;

    get reading(): boolean {
        return this.open !== undefined;
    }

    line(text: string): Outcome | undefined {
        if (REPEAT.test(text)) {
            this.settle();
            this.repeat = true;
            return undefined;
        }
        const header = HEADER.exec(text);
        if (header) {
            this.settle();
            if (!this.repeat) {
                // jest joins a test's suites with `›`; the status shows them as mocha's are, with `>`.
                this.open = { name: header[1]!.trim().replace(/ › /g, ' > '), message: [], pastMessage: false };
            }
            return undefined;
        }
        if (this.open) {
            this.detail(this.open, text);
            return undefined;
        }
        return PASSED.test(text) ? 'passed' : FAILED.test(text) ? 'failed' : undefined;
    }

    private detail(open: Open, text: string): void {
        if (AFTER.test(text)) {
            this.settle();
        } else if (isStackLine(text)) {
            open.pastMessage = true;
            open.place ??= ownFrame(text);
        } else if (CODE_FRAME.test(text)) {
            open.pastMessage = true;
        } else if (!open.pastMessage) {
            open.message.push(text);
        }
    }

    private settle(): void {
        const open = this.open;
        this.open = undefined;
        if (open) {
            this.failures.add({ name: open.name, ...open.place, message: messageLines(open.message) });
        }
    }

    end(): void {
        this.settle();
    }
}
