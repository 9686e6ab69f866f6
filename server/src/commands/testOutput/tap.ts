import { messageLines, ownFrame, placeOf, unquoted } from './errorText.js';
import { Failures, type FormatReader, type Outcome, type TestFormat } from './failure.js';

/**
 * TAP, as node:test prints it when its output is not a terminal (`node --test` in a task):
 * `ok 3 - name` / `not ok 3 - name`, subtests indented above their parent's line, and after a
 * failure a YAML block with `location: 'file:line:col'`, `error:` (its message) and `stack:`.
 * Also as tape prints it: each test a `# name` comment, then one result per assertion (`not ok 57
 * should be deeply equivalent`) whose block has `operator`, `expected`, `actual` and `at:`; a
 * failure is named `test › assertion` there, and its message is what was expected and what came.
 */
export const tap: TestFormat = {
    name: 'TAP',
    // A failure, or (tape) a comment naming the test whose results follow: read where it is, so a
    // failure after it is named. Not node:test's own comments, which name nothing a failure needs.
    start: /^\s*not ok\b|^#\s(?!\s*(?:Subtest:|tests |suites |pass |fail |cancelled |skipped |todo |duration_ms ))/m,
    // `ok` ends the line or a space follows it; a plan (`1..3`) says the next result is a parent's.
    needles: ['ok ', 'ok\t', 'ok\r', 'ok\n', '1..'],
    reader: () => new TapReader(),
};

const RESULT = /^(\s*)(not )?ok\b(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*))?$/;
const PLAN = /^(\s*)\d+\.\.\d+/;
/** Not a pass nor a failure: skipped, or failing as the author expects. */
const DIRECTIVE = /(?:^|\s)#\s*(?:skip|todo)\b/i;
const YAML_KEY = /^(\s*)([\w-]+):(?:\s+(.*))?$/;
/** A comment naming the test whose results follow (tape); node:test's `# Subtest: name` comes with named results instead. */
const TEST_COMMENT = /^#\s+(.+)$/;
/** node:test's comments: a subtest's announcement, and the run's counts at its end. */
const NODE_TEST_COMMENT = /^#\s+(?:Subtest:|(?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms|ok)\b)/;
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
    /** The test named by the last top-level comment (tape), while no `# Subtest:` has said this is node:test's TAP. */
    private commentTest?: string;
    private nodeTest = false;

    get reading(): boolean {
        return this.open !== undefined;
    }

    line(text: string): Outcome | undefined {
        if (this.open && this.details(this.open, text)) {
            return undefined;
        }
        const result = RESULT.exec(text);
        if (!result) {
            this.comment(text);
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
            const own = name || `test ${result[3] ?? '?'}`;
            this.open = { name: this.commentTest !== undefined && indent === 0 ? `${this.commentTest} › ${own}` : own, indent, keyIndent: -1, fields: new Map() };
        }
        return parent ? undefined : failed ? 'failed' : 'passed';
    }

    /** A top-level comment: tape's test name, or (`# Subtest:`) the sign that comments here name nothing. */
    private comment(text: string): void {
        if (this.nodeTest) {
            return;
        }
        if (text.startsWith('# Subtest:')) {
            this.nodeTest = true;
            this.commentTest = undefined;
            return;
        }
        const comment = TEST_COMMENT.exec(text);
        if (comment && !NODE_TEST_COMMENT.test(text)) {
            this.commentTest = comment[1]!.trim();
        }
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
        const message = open.fields.has('error') ? messageLines(open.fields.get('error')!) : expectedActual(open.fields);
        const type = value('name');
        if (type !== '' && type !== 'Error' && type !== 'AssertionError' && message.length > 0) {
            message[0] = `${type}: ${message[0]}`;
        }
        const place = (open.fields.get('stack') ?? []).map(ownFrame).find(frame => frame !== undefined) ?? placeOf(value('location')) ?? placeOf(value('at'));
        this.failures.add({ name: open.name, ...place, message, ...(failureType === 'cancelledByParent' ? { consequence: true } : {}) });
    }

    end(): void {
        this.settle();
    }
}

/** tape's failure has no message of its own: what was expected and what came, one line each. */
function expectedActual(fields: Map<string, string[]>): string[] {
    const oneLine = (key: string) =>
        (fields.get(key) ?? [])
            .map(line => line.trim())
            .filter(Boolean)
            .join(' ');
    const expected = oneLine('expected');
    const actual = oneLine('actual');
    return expected === '' && actual === '' ? [] : [`expected: ${expected}`, `actual: ${actual}`];
}
