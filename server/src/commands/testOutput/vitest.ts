import { messageLines, ownFrame, type Place } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * vitest's default reporter: `✓ name 3ms` and `× name 9ms` as tests end (under `❯ file (N tests)`);
 * then, after `⎯⎯ Failed Tests N ⎯⎯`, each failure as ` FAIL  file > suite > name`, its error,
 * a `- Expected + Received` diff, ` ❯ file:line:col` and a code frame, up to a `⎯⎯⎯` rule.
 */
export const vitest: TestFormat = {
    name: 'vitest',
    start: /^⎯+ Failed Tests \d+ ⎯+/m,
    needles: ['✓', '×'],
    reader: () => new VitestReader(),
};

/** A test's line; a file's (`✓ test/a.test.js (4 tests) 5ms`) is not one. */
const PASSED = /^\s*✓ (?!.*\(\d+ tests?\b)\S/;
const FAILED = /^\s*× (?!.*\(\d+ tests?\b)\S/;
const SECTION = /^⎯+ Failed Tests \d+ ⎯+/;
const HEADER = /^\s*FAIL\s+(\S+)(?: > (.+))?$/;
const RULE = /^⎯{3,}/;
const SUMMARY = /^\s*Test Files\s/;
const DIFF_LEGEND = /^- Expected\s*$/;
/** Where vitest says the error was thrown: ` ❯ test/a.test.js:6:23` (and the stack's frames, alike). */
const FRAME = /^\s*❯ /;
const CODE_FRAME = /^\s*\d*\|/;

interface Open {
    name: string;
    message: string[];
    pastMessage: boolean;
    place?: Place;
}

class VitestReader implements FormatReader {
    readonly failures = new Failures();
    private section = false;
    private open?: Open;

    get reading(): boolean {
        return this.section;
    }

    line(text: string): Outcome | undefined {
        if (this.section) {
            this.inSection(text);
            return undefined;
        }
        if (SECTION.test(text)) {
            this.section = true;
            return undefined;
        }
        return PASSED.test(text) ? 'passed' : FAILED.test(text) ? 'failed' : undefined;
    }

    private inSection(text: string): void {
        const header = HEADER.exec(text);
        if (header) {
            this.settle();
            // A file that failed as a whole has no test name: the file is its name.
            this.open = { name: header[2]?.trim() ?? header[1]!, message: [], pastMessage: false };
            return;
        }
        if (RULE.test(text) || SUMMARY.test(text)) {
            this.settle();
            this.section = !SUMMARY.test(text);
            return;
        }
        const open = this.open;
        if (!open) {
            return;
        }
        if (FRAME.test(text)) {
            open.pastMessage = true;
            open.place ??= ownFrame(text);
        } else if (DIFF_LEGEND.test(text) || CODE_FRAME.test(text)) {
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
