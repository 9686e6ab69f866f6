// The supervisor's stop on cancel. An adopted run (a new server taking over a command that outlived
// the old one) opens its files before it is followed: a cancel that came meanwhile had already
// aborted the signal, which fires no event for a listener added later, and the command ran on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { supervise, type Supervised } from '../../../../server/src/commands/supervise.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A run that never starts nor ends by itself: only the stop is observed (its pgid is recorded). */
function followed(signal: AbortSignal, stops: number[]): Supervised {
    const stopper = { stop: ({ pgid }: { pgid: number }) => (stops.push(pgid), never()) };
    return {
        spec: { name: 'suite' },
        argv: ['suite'],
        ctx: { signal },
        deps: {},
        logEntry: {},
        output: {},
        capture: {},
        leader: { pid: 4242, startError: never(), exited: never(), since: 0 },
        marker: 'marker',
        started: 0,
        throttle: {},
        stopper,
        stopping: {},
        onLogError: () => undefined,
    } as unknown as Supervised;
}

describe('supervise', () => {
    it('stops the run when the cancel came before it was followed', () => {
        const cancel = new AbortController();
        cancel.abort(new Error('cancelled'));
        const stops: number[] = [];
        void supervise(followed(cancel.signal, stops));
        assert.deepEqual(stops, [4242]);
    });

    it('stops the run when the cancel comes while it is followed, once', () => {
        const cancel = new AbortController();
        const stops: number[] = [];
        void supervise(followed(cancel.signal, stops));
        assert.deepEqual(stops, []);
        cancel.abort(new Error('cancelled'));
        assert.deepEqual(stops, [4242]);
    });
});
