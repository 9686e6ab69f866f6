import { fileURLToPath } from 'node:url';

/** The place a frame or location names, at its end: `fn (file:line:col)`, `at file:line:col`, `file:line:col`. */
const PLACE = /(?:^|\(|\s)((?:file:\/\/)?[^\s()]+?):(\d+):\d+\)?$/;
/** A frame of a printed stack: `    at fn (file:line:col)`. */
const STACK_LINE = /^\s*at\s/;
/** Node's words before an assertion's own message: the message is what a person reads. */
const ASSERTION_PREFIX = /^AssertionError(?: \[ERR_ASSERTION\])?:\s*/;
/**
 * Lines of an error's print that say nothing about this failure: YAML markers, an error's own
 * properties (`code: 'ERR_ASSERTION'`, `operator: 'strictEqual'`), a diff's legend and brackets.
 */
const NOISE = /^(?:---|\.\.\.|[{}[\]],?|\+ actual - expected|\+ expected - actual|(?:name|code|operator|generatedMessage|diff|failureType):\s.*)$/;

export interface Place {
    file: string;
    line: number;
}

export function isStackLine(text: string): boolean {
    return STACK_LINE.test(text);
}

/** The file and line a frame or location names (a `file://` URL as a path). */
export function placeOf(text: string): Place | undefined {
    // A frame that opens the error's properties ends in ` {`.
    const match = PLACE.exec(text.trim().replace(/\s*\{$/, ''));
    if (!match) {
        return undefined;
    }
    let file = match[1]!;
    if (file.startsWith('file://')) {
        try {
            file = fileURLToPath(file);
        } catch {
            // Not a URL node can turn into a path: shown as printed.
        }
    }
    return { file, line: Number(match[2]) };
}

/** The place a frame names when it is the project's own code: not a dependency's, not node's. */
export function ownFrame(text: string): Place | undefined {
    const place = placeOf(text);
    return place && !place.file.startsWith('node:') && !place.file.startsWith('internal/') && !/(?:^|[\\/])node_modules[\\/]/.test(place.file) ? place : undefined;
}

/** The lines of an error's message as a person reads them: trimmed, no blank or noise line, no assertion prefix, not quoted. */
export function messageLines(lines: readonly string[]): string[] {
    const kept: string[] = [];
    for (const raw of lines) {
        let text = raw.trim();
        if (kept.length === 0) {
            text = text.replace(ASSERTION_PREFIX, '');
        }
        if (text === '' || NOISE.test(text)) {
            continue;
        }
        kept.push(unquoted(text));
    }
    return kept;
}

/** A value as YAML or node's inspect prints it quoted (`'it failed'`, `"it failed"`), without the quotes; `'a' !== 'b'` stays as it is. */
export function unquoted(text: string): string {
    const single = /^'((?:[^'\\]|''|\\.)*)'$/.exec(text);
    if (single) {
        return single[1]!.replace(/''|\\'/g, "'");
    }
    if (text.startsWith('"') && text.endsWith('"')) {
        try {
            return String(JSON.parse(text));
        } catch {
            // Not one quoted string (`"a" !== "b"`).
        }
    }
    return text;
}
