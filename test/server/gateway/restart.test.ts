import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Downstream, RESTART_BACKOFF_MS } from '../../../server/src/gateway/downstream.js';
import type { Logger } from '../../../server/src/util/log.js';
import { ManualClock } from '../../support/manualClock.js';
import { waitUntil } from '../../support/wait.js';

// The restart backoff of a wrapped server that keeps dying, with time driven by a manual clock:
// each attempt is a real process that exits at once; the delays double from 1 s up to 30 s.

describe('restarting a wrapped server that keeps dying', { timeout: 60_000 }, () => {
    it('waits 1, 2, 4 … s between attempts, never more than 30 s, and says why calls fail meanwhile', async () => {
        const clock = new ManualClock();
        const lines: string[] = [];
        const note = (message: string) => void lines.push(message);
        const log: Logger = { error: note, warn: note, info: note, debug: () => undefined };
        const downstream = new Downstream({ kind: 'stdio', name: 'dying', command: process.execPath, args: ['-e', 'process.exit(3)'], sync: [] }, log, clock, () => undefined);
        await downstream.start();
        const delays: number[] = [];
        for (let attempt = 1; attempt <= 7; attempt++) {
            const line = await waitUntil(() => lines.find(l => l.includes(`(attempt ${attempt})`)), `restart attempt ${attempt}`);
            const delay = Number(/restarting in ([\d.]+) s/.exec(line)![1]) * 1000;
            delays.push(delay);
            assert.equal(downstream.state, 'restarting');
            assert.throws(() => downstream.connected(), /The wrapped MCP server "dying" is restarting \(could not start: .*\); try the call again in a few seconds/);
            await clock.tick(delay);
        }
        assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert.equal(RESTART_BACKOFF_MS.max, 30_000);
        await downstream.close();
        assert.equal(clock.pending, 0, 'no restart left after close');
    });
});
