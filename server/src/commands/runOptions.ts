/** How a command's runs are reported and limited: the commands file fields beyond what to run. */
export interface RunOptions {
    /** Lines that say something failed; the digest shows them with context (default: common test runners' words). */
    failurePattern?: RegExp;
    /** What the author expects a run to take, for the tool's description. */
    expectedDurationMs?: number;
    /** At most this many runs of the command at once. */
    concurrency?: number;
    /**
     * A call with the same arguments as a running (or queued) run follows it and gets its result
     * (`attach`, the default: a model that retries a deferred or slow call does not start the work
     * twice); `queue` gives every call its own run; beyond `concurrency` a call waits its turn, or
     * with `reject` is refused.
     */
    whenBusy: 'reject' | 'queue' | 'attach';
    /** A task of this command nobody asked about for this long is cancelled, even in the background. */
    maxUnpolledMs?: number;
}

export const RUN_OPTION_KEYS = ['failurePattern', 'expectedDurationMs', 'concurrency', 'whenBusy', 'maxUnpolledMs'] as const;

const WHEN_BUSY = ['reject', 'queue', 'attach'];

/** The run options of one commands-file entry; `fail` names the entry and field. */
export function parseRunOptions(entry: Record<string, unknown>, fail: (field: string, message: string) => never): RunOptions {
    let failurePattern: RegExp | undefined;
    if (entry.failurePattern !== undefined) {
        if (typeof entry.failurePattern !== 'string' || !entry.failurePattern) {
            fail('failurePattern', 'must be a regular expression as a string, e.g. "^not ok|FAIL"');
        }
        try {
            failurePattern = new RegExp(entry.failurePattern as string);
        } catch (err) {
            fail('failurePattern', (err as Error).message);
        }
    }
    const positive = (field: string, integer = false): number | undefined => {
        const value = entry[field];
        if (value !== undefined && (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value)))) {
            fail(field, integer ? 'must be a whole number ≥ 1' : 'must be a positive number of milliseconds');
        }
        return value as number | undefined;
    };
    const concurrency = positive('concurrency', true);
    const whenBusy = entry.whenBusy ?? 'attach';
    if (typeof whenBusy !== 'string' || !WHEN_BUSY.includes(whenBusy)) {
        fail('whenBusy', `must be one of ${WHEN_BUSY.join(', ')}`);
    }
    if (whenBusy === 'reject' && concurrency === undefined) {
        fail('whenBusy', '"reject" needs a concurrency to be busy at');
    }
    return {
        failurePattern,
        expectedDurationMs: positive('expectedDurationMs'),
        concurrency,
        whenBusy: whenBusy as RunOptions['whenBusy'],
        maxUnpolledMs: positive('maxUnpolledMs'),
    };
}

/** "about 90 s", "about 4 min": for a tool's description. */
export function durationText(ms: number): string {
    const seconds = ms / 1000;
    if (seconds < 90) {
        return `about ${Number(seconds.toPrecision(2))} s`;
    }
    const minutes = seconds / 60;
    return minutes < 90 ? `about ${Number(minutes.toPrecision(2))} min` : `about ${Number((minutes / 60).toPrecision(2))} h`;
}
