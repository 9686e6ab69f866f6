import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceSubscriptions } from '../../../../server/src/gateway/resourceSubscriptions.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { promisesDrained } from '../../../support/wait.js';

// Who keeps a wrapped server's resource subscription: 2026-07-28 listeners (each for as long as its
// stream is open) and 2025-11-25 sessions (until one unsubscribes). The wrapped server hears
// subscribe from the first and unsubscribe after the last, so one client leaving never stops
// another's updates.

function subscriptions(refuse: string[] = []) {
    const sent: string[] = [];
    const forward = async (method: string, params: Record<string, unknown>) => {
        if (refuse.includes(params.uri as string)) {
            throw new Error(`Unknown resource: ${params.uri as string}`);
        }
        sent.push(`${method} ${params.uri as string}`);
        return {};
    };
    /** What was sent once the unsubscribes a release sends without waiting have gone. */
    const sentSoFar = async () => {
        await promisesDrained();
        return sent;
    };
    return { sent, sentSoFar, subs: new ResourceSubscriptions(forward, createLogger('error', () => undefined)) };
}

const SUBSCRIBE_A = 'resources/subscribe res://a';
const UNSUBSCRIBE_A = 'resources/unsubscribe res://a';

const signal = new AbortController().signal;

describe('resource subscriptions shared by listeners and sessions', () => {
    it('subscribes once for two listeners, and unsubscribes after the second leaves', async () => {
        const { sent, sentSoFar, subs } = subscriptions();
        const first = await subs.hold('res://a', signal);
        const second = await subs.hold('res://a', signal);
        assert.deepEqual(sent, [SUBSCRIBE_A]);
        first();
        first();
        assert.deepEqual(await sentSoFar(), [SUBSCRIBE_A], 'one listener still holds it (a second release is a no-op)');
        second();
        assert.deepEqual(await sentSoFar(), [SUBSCRIBE_A, UNSUBSCRIBE_A]);
    });

    it("a listener leaving keeps a session's subscription; the session's unsubscribe waits for the listeners", async () => {
        const { sent, sentSoFar, subs } = subscriptions();
        await subs.subscribe({ uri: 'res://a' }, signal);
        const release = await subs.hold('res://a', signal);
        release();
        assert.deepEqual(await sentSoFar(), [SUBSCRIBE_A], 'the session still wants it');
        const again = await subs.hold('res://a', signal);
        assert.deepEqual(await subs.unsubscribe({ uri: 'res://a' }, signal), {});
        assert.deepEqual(sent, [SUBSCRIBE_A], 'the listener still wants it');
        again();
        assert.deepEqual(await sentSoFar(), [SUBSCRIBE_A, UNSUBSCRIBE_A]);
    });

    it('renews what is still held (a restarted server forgot it), and only that', async () => {
        const { sent, sentSoFar, subs } = subscriptions();
        await subs.subscribe({ uri: 'res://session' }, signal);
        const release = await subs.hold('res://listener', signal);
        (await subs.hold('res://gone', signal))();
        await sentSoFar();
        sent.length = 0;
        subs.renew();
        assert.deepEqual((await sentSoFar()).sort(), ['resources/subscribe res://listener', 'resources/subscribe res://session']);
        release();
    });

    it('a URI no server takes is refused to the listener and not held', async () => {
        const { sent, subs } = subscriptions(['res://gone']);
        await assert.rejects(subs.hold('res://gone', signal), /Unknown resource: res:\/\/gone/);
        await assert.rejects(subs.subscribe({}, signal), /resources\/subscribe needs a uri/);
        assert.deepEqual(sent, []);
        await subs.hold('res://gone-too', signal);
        assert.deepEqual(sent, ['resources/subscribe res://gone-too']);
    });
});
