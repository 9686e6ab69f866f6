import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceSubscriptions } from '../../../../server/src/gateway/resourceSubscriptions.js';
import { createLogger } from '../../../../server/src/log.js';
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
    return { sent, subs: new ResourceSubscriptions(forward, createLogger('error', () => undefined)) };
}

const signal = new AbortController().signal;

describe('resource subscriptions shared by listeners and sessions', () => {
    it('subscribes once for two listeners, and unsubscribes after the second leaves', async () => {
        const { sent, subs } = subscriptions();
        const first = await subs.hold('res://a', signal);
        const second = await subs.hold('res://a', signal);
        assert.deepEqual(sent, ['resources/subscribe res://a']);
        first();
        first();
        await promisesDrained(); // the unsubscribe a release sends without waiting
        assert.deepEqual(sent, ['resources/subscribe res://a'], 'one listener still holds it (a second release is a no-op)');
        second();
        await promisesDrained();
        assert.deepEqual(sent, ['resources/subscribe res://a', 'resources/unsubscribe res://a']);
    });

    it("a listener leaving keeps a session's subscription; the session's unsubscribe waits for the listeners", async () => {
        const { sent, subs } = subscriptions();
        await subs.subscribe({ uri: 'res://a' }, signal);
        const release = await subs.hold('res://a', signal);
        release();
        await promisesDrained();
        assert.deepEqual(sent, ['resources/subscribe res://a'], 'the session still wants it');
        const again = await subs.hold('res://a', signal);
        assert.deepEqual(await subs.unsubscribe({ uri: 'res://a' }, signal), {});
        assert.deepEqual(sent, ['resources/subscribe res://a'], 'the listener still wants it');
        again();
        await promisesDrained();
        assert.deepEqual(sent, ['resources/subscribe res://a', 'resources/unsubscribe res://a']);
    });

    it('renews what is still held (a restarted server forgot it), and only that', async () => {
        const { sent, subs } = subscriptions();
        await subs.subscribe({ uri: 'res://session' }, signal);
        const release = await subs.hold('res://listener', signal);
        (await subs.hold('res://gone', signal))();
        await promisesDrained();
        sent.length = 0;
        subs.renew();
        await promisesDrained();
        assert.deepEqual(sent.sort(), ['resources/subscribe res://listener', 'resources/subscribe res://session']);
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
