import { messageLines, ownFrame, placeOf, unquoted } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * TAP, as node:test prints it when its output is not a terminal (`node --test` in a task):
 * `ok 3 - name` / `not ok 3 - name`, subtests indented above their parent's line, and after a
 * failure a YAML block with `location: 'file:line:col'`, `error:` (its message) and `stack:`.
 */
export const tap: TestFormat = {
    name: 'TAP',
    start: /^\s*not ok\b/m,
    // `ok` ends the line or a space follows it; a plan (`1..3`) says the next result is a parent's.
    needles: ['ok ', 'ok\t', 'ok\r', 'ok\n', '1..'],
    reader: () => new TapReader(),
};

const RESULT = /^(\s*)(not )?ok\b(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*))?$/;
const PLAN = /^(\s*)\d+\.\.\d+/;
/** Not a pass nor a failure: skipped, or failing as the author expects. */
const DIRECTIVE = /(?:^|\s)#\s*(?:skip|todo)\b/i;
const YAML_KEY = /^(\s*)([\w-]+):(?:\s+(.*))?$/;
/** A key whose value is on the lines below (`error: |-`, or nothing after the colon). */
const VALUE_BELOW = /^(?:[|>][-+]?)?$/;

interface Open {
    name: string;
    indent: number;
    /** The indentation of its YAML block's `---`, once seen. */
    yaml?: number;
    key?: string;
    keyIndent: number;
    fields: Map<string, string[]>;
}

class TapReader implements FormatReader {
    readonly failures = new Failures();
    private open?: Open;
    /** The indentation of a plan line just read: the result right after it is its tests' parent, not a test. */
    private planIndent = -1;

    get reading(): boolean {
        return this.open !== undefined;
    }

    line(text: string): Outcome | undefined {
        if (this.open && this.details(this.open, text)) {
            return undefined;
        }
        const result = RESULT.exec(text);
        if (!result) {
            const plan = PLAN.exec(text);
            if (plan || text.trim() !== '') {
                this.planIndent = plan ? plan[1]!.length : -1;
            }
            return undefined;
        }
        const indent = result[1]!.length;
        const parent = this.planIndent > indent;
        this.planIndent = -1;
        const name = (result[4] ?? '').replace(/\\([#\\])/g, '$1');
        if (DIRECTIVE.test(result[4] ?? '')) {
            return undefined;
        }
        const failed = result[2] !== undefined;
        if (failed) {
            this.open = { name: name || `test ${result[3] ?? '?'}`, indent, keyIndent: -1, fields: new Map() };
        }
        return parent ? undefined : failed ? 'failed' : 'passed';
    }

    /** A line of the open failure's YAML block (true), or the line after it (false, the failure settled). */
    private details(open: Open, text: string): boolean {
        const indent = text.length - text.trimStart().length;
        const trimmed = text.trim();
        if (open.yaml === undefined) {
            if (trimmed === '---' && indent > open.indent) {
                open.yaml = indent;
                return true;
            }
        } else if (trimmed === '...' && indent === open.yaml) {
            this.settle();
            return true;
        } else if (trimmed === '' || indent >= open.yaml) {
            this.field(open, text, indent);
            return true;
        }
        this.settle();
        return false;
    }

    /** Each key's value as lines: what follows its colon, or the lines indented below it. */
    private field(open: Open, text: string, indent: number): void {
        if (open.key !== undefined && (text.trim() === '' || indent > open.keyIndent)) {
            open.fields.get(open.key)!.push(text);
            return;
        }
        const key = YAML_KEY.exec(text);
        if (!key) {
            return;
        }
        const value = key[3] ?? '';
        open.key = key[2]!;
        open.keyIndent = key[1]!.length;
        open.fields.set(open.key, VALUE_BELOW.test(value) ? [] : [value]);
    }

    private settle(): void {
        const open = this.open;
        this.open = undefined;
        if (!open) {
            return;
        }
        const value = (key: string) => unquoted(open.fields.get(key)?.[0]?.trim() ?? '');
        const failureType = value('failureType');
        // A suite or a test failing only because tests inside it did: those are listed themselves.
        if (failureType === 'subtestsFailed') {
            return;
        }
        const message = messageLines(open.fields.get('error') ?? []);
        const type = value('name');
        if (type !== '' && type !== 'Error' && type !== 'AssertionError' && message.length > 0) {
            message[0] = `${type}: ${message[0]}`;
        }
        const place = (open.fields.get('stack') ?? []).map(ownFrame).find(frame => frame !== undefined) ?? placeOf(value('location'));
        this.failures.add({ name: open.name, ...place, message, ...(failureType === 'cancelledByParent' ? { consequence: true } : {}) });
    }

    end(): void {
        this.settle();
    }
}
