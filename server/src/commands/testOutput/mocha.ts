import { isStackLine, messageLines, ownFrame, type Place } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * mocha's spec reporter (its default): `✔ name` as a test passes, `3) name` as one fails; then
 * `N failing` and each failure again, numbered: its suites and name over a few lines (the last
 * ending in `:`), the error's message, a `+ expected - actual` diff, and the stack.
 */
export const mocha: TestFormat = {
    name: 'mocha',
    start: /^\s*\d+ failing\b/m,
    // After `N failing`, the numbered lines are the failures told again, not more of them.
    needles: ['✔', '✓', ') ', 'failing'],
    reader: () => new MochaReader(),
};

const PASSED = /^\s*[✔✓] \S/;
const NUMBERED = /^\s*\d+\) (.*)$/;
const FAILING = /^\s*\d+ failing\b/;
const DIFF_LEGEND = /^\s*\+ expected - actual\s*$/;

interface Open {
    titles: string[];
    /** Its name is read (the title line ending in `:`); then come its message, diff and stack. */
    named: boolean;
    message: string[];
    /** Past the message: the diff or the stack. */
    pastMessage: boolean;
    place?: Place;
}

class MochaReader implements FormatReader {
    readonly failures = new Failures();
    private summary = false;
    private open?: Open;

    get reading(): boolean {
        return this.summary;
    }

    line(text: string): Outcome | undefined {
        if (this.summary) {
            this.inSummary(text);
            return undefined;
        }
        if (FAILING.test(text)) {
            this.summary = true;
            return undefined;
        }
        return PASSED.test(text) ? 'passed' : NUMBERED.test(text) ? 'failed' : undefined;
    }

    private inSummary(text: string): void {
        const numbered = NUMBERED.exec(text);
        if (numbered) {
            this.settle();
            this.open = { titles: [], named: false, message: [], pastMessage: false };
            this.title(this.open, numbered[1]!);
            return;
        }
        const open = this.open;
        if (!open) {
            return;
        }
        if (!open.named) {
            this.title(open, text);
        } else if (isStackLine(text)) {
            open.pastMessage = true;
            open.place ??= ownFrame(text);
        } else if (DIFF_LEGEND.test(text)) {
            open.pastMessage = true;
        } else if (!open.pastMessage) {
            open.message.push(text);
        }
    }

    private title(open: Open, text: string): void {
        const title = text.trim();
        if (title === '') {
            return;
        }
        open.named = title.endsWith(':');
        open.titles.push(open.named ? title.slice(0, -1) : title);
    }

    private settle(): void {
        const open = this.open;
        this.open = undefined;
        if (open) {
            this.failures.add({ name: open.titles.join(' > '), ...open.place, message: messageLines(open.message) });
        }
    }

    end(): void {
        this.settle();
    }
}
