import { isStackLine, messageLines, ownFrame, placeOf, type Place } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * node:test's spec reporter (`node --test` in a terminal, or `--test-reporter=spec`): `✔ name
 * (1.2ms)` and `✖ name (1.2ms)` as tests end, `▶ suite` before a suite's tests; at the end,
 * after `✖ failing tests:`, each failure again with `test at file:line:col` above it and its
 * error printed below it, stack and all.
 */
export const nodeSpec: TestFormat = {
    name: 'node:test spec',
    start: /^✖ failing tests:/m,
    needles: ['✔', '✖', '▶'],
    reader: () => new SpecReader(),
};

const SUITE = /^(\s*)▶ /;
const RESULT = /^(\s*)([✔✖]) (.*?)(?: \([\d.]+m?s\))?( # .*)?$/;
const SUMMARY = /^✖ failing tests:\s*$/;
const DECLARED = /^\w+ at (.+)$/;
/** What node says of a test its parent cancelled (a suite's hook failed): the parent's failure says why. */
const CANCELLED_BY_PARENT = 'test did not finish before its parent and was cancelled';

interface Open {
    name: string;
    declared?: Place;
    message: string[];
    /** Its stack began: what comes after is the stack and the error's properties. */
    stack: boolean;
    place?: Place;
}

class SpecReader implements FormatReader {
    readonly failures = new Failures();
    /** The indentation of each suite begun and not ended: a result at that indentation ends the suite. */
    private readonly suites: number[] = [];
    private summary = false;
    private declared?: Place;
    private open?: Open;

    get reading(): boolean {
        return this.summary;
    }

    line(text: string): Outcome | undefined {
        if (this.summary) {
            this.inSummary(text);
            return undefined;
        }
        if (SUMMARY.test(text)) {
            this.summary = true;
            return undefined;
        }
        const suite = SUITE.exec(text);
        if (suite) {
            this.suites.push(suite[1]!.length);
            return undefined;
        }
        const result = RESULT.exec(text);
        if (!result || result[4] !== undefined) {
            return undefined;
        }
        if (this.suites.at(-1) === result[1]!.length) {
            this.suites.pop();
            return undefined;
        }
        return result[2] === '✔' ? 'passed' : 'failed';
    }

    private inSummary(text: string): void {
        const declared = DECLARED.exec(text);
        if (declared) {
            this.settle();
            this.declared = placeOf(declared[1]!);
            return;
        }
        const result = RESULT.exec(text);
        if (result && result[1] === '' && result[2] === '✖') {
            this.settle();
            this.open = { name: result[3]!, declared: this.declared, message: [], stack: false };
            this.declared = undefined;
            return;
        }
        const open = this.open;
        if (!open) {
            return;
        }
        if (/^\S/.test(text)) {
            // The error is printed indented: a line that is not is someone else's (npm's, after node exits).
            this.settle();
        } else if (isStackLine(text)) {
            open.stack = true;
            open.place ??= ownFrame(text);
        } else if (!open.stack) {
            open.message.push(text);
        }
    }

    private settle(): void {
        const open = this.open;
        this.open = undefined;
        if (!open) {
            return;
        }
        const message = messageLines(open.message);
        const consequence = message.length === 1 && message[0] === CANCELLED_BY_PARENT;
        this.failures.add({ name: open.name, ...(open.place ?? open.declared), message, ...(consequence ? { consequence } : {}) });
    }

    end(): void {
        this.settle();
    }
}
