/** Starts wait in one line and are made a few per event-loop turn, so what else is due runs between them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpawnPacer } from '../../../../server/src/commands/spawnPacer.js';

/** Queues three starts, then marks each later turn of the loop until the starts are done. */
async function order(pacer: SpawnPacer): Promise<string[]> {
    const seen: string[] = [];
    const starts = [1, 2, 3].map(n => pacer.run(() => (seen.push(`start ${n}`), n)));
    let turn = 0;
    let done = false;
    const mark = (): void => {
        if (!done) {
            seen.push(`turn ${++turn}`);
            setImmediate(mark);
        }
    };
    setImmediate(mark);
    assert.deepEqual(await Promise.all(starts), [1, 2, 3], 'each start resolves with what it returned');
    done = true;
    return seen;
}

describe('spawn pacer', () => {
    it('makes one start per turn when each uses up the budget, in the order they came, with the loop turning between them', async () => {
        assert.deepEqual(await order(new SpawnPacer(0)), ['start 1', 'turn 1', 'start 2', 'turn 2', 'start 3']);
    });

    it('makes as many as the budget allows in one turn', async () => {
        assert.deepEqual((await order(new SpawnPacer(60_000))).slice(0, 3), ['start 1', 'start 2', 'start 3']);
    });

    it('rejects the start that throws, and goes on with the next', async () => {
        const pacer = new SpawnPacer(0);
        const failing = pacer.run(() => {
            throw new Error('spawn EINVAL');
        });
        const next = pacer.run(() => 'ran');
        await assert.rejects(failing, /spawn EINVAL/);
        assert.equal(await next, 'ran');
        assert.equal(pacer.waiting, 0);
    });
});
