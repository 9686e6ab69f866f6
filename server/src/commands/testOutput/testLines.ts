import type { FormatReader, TestFailure, TestFormat } from './failure.js';
import { jest } from './jest.js';
import { mocha } from './mocha.js';
import { nodeSpec } from './nodeSpec.js';
import { tap } from './tap.js';
import { vitest } from './vitest.js';

/** The formats known. Each reads every line on its own: the one that makes the most of the output speaks for it. */
const FORMATS: readonly TestFormat[] = [nodeSpec, tap, mocha, jest, vitest];
/** A line that begins what some reader needs line by line. */
const START = new RegExp(FORMATS.map(format => format.start.source).join('|'), 'm');
/** Strings every line that ends a test holds, in one format or another. */
export const TEST_NEEDLES: readonly string[] = [...new Set(FORMATS.flatMap(format => format.needles))];

export interface TestCounts {
    passed: number;
    failed: number;
}

export interface TestReport {
    format: string;
    /** The first failures, in the order they were printed. */
    failures: TestFailure[];
    /** All of them. */
    count: number;
}

interface Reading {
    format: TestFormat;
    reader: FormatReader;
    passed: number;
    failed: number;
}

/** A command's output read as a test runner's, in every known format at once. */
export class TestLines {
    private readonly readings: Reading[] = FORMATS.map(format => ({ format, reader: format.reader(), passed: 0, failed: 0 }));

    /** The next line, colours and `\r` gone; whether it ended a test (in some format). */
    line(text: string): boolean {
        let ended = false;
        for (const reading of this.readings) {
            const outcome = reading.reader.line(text);
            if (outcome !== undefined) {
                reading[outcome]++;
                ended = true;
            }
        }
        return ended;
    }

    /** Whether lines (joined by newlines) must be read one by one: a reader is inside something, or something begins in them. */
    wants(block: string): boolean {
        return this.readings.some(reading => reading.reader.reading) || START.test(block);
    }

    /** The tests ended so far, as the format that counted the most counts them; undefined before any. */
    counts(): TestCounts | undefined {
        const best = most(this.readings, reading => reading.passed + reading.failed);
        return best && { passed: best.passed, failed: best.failed };
    }

    /** The output ended: the failures, as the format that found the most gives them; undefined when none did. */
    report(): TestReport | undefined {
        for (const reading of this.readings) {
            reading.reader.end();
        }
        const best = most(this.readings, reading => reading.reader.failures.count);
        return best && { format: best.format.name, failures: best.reader.failures.kept, count: best.reader.failures.count };
    }
}

/** The first reading with the highest score, if any scores above 0. */
function most(readings: Reading[], score: (reading: Reading) => number): Reading | undefined {
    let best: Reading | undefined;
    for (const reading of readings) {
        if (score(reading) > (best ? score(best) : 0)) {
            best = reading;
        }
    }
    return best;
}
