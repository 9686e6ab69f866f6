/**
 * The idle sweep of HTTP sessions on a virtual clock: `node:test` mock timers move time, so the
 * limits are checked to the millisecond without waiting. A real TasksServer and tools behind it;
 * the end-to-end side (404 for a dead id, the tasks it leaves) is idle.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { z } from 'zod';
import { createTasksServer, defineTool, silentLogger, textResult, type TasksServer } from '../../../../server/src/index.js';
import type { JsonRpcMessage } from '../../../../server/src/rpc/messages.js';
import type { Transport } from '../../../../server/src/rpc/transport.js';
import { HttpSessions } from '../../../../server/src/transports/httpSessions.js';
import { systemClock, type Clock, type ClockTimer } from '../../../../server/src/util/clock.js';

const IDLE_MS = 1000;
/** The sweep runs every quarter of the limit, so a session goes at most this long after it. */
const SWEEP_MS = IDLE_MS / 4;
const CALLER = { principal: 'anonymous', isOwner: false };

/** A response stream that keeps what it is sent. */
class Collector implements Transport {
    readonly messages: JsonRpcMessage[] = [];
    send(message: JsonRpcMessage): boolean {
        this.messages.push(message);
        return true;
    }
    close(): void {}
}

describe('idle sweep on a virtual clock', () => {
    let core: TasksServer;
    let sessions: HttpSessions;
    let release: () => void;

    beforeEach(() => {
        mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
        // A tool that holds its request open until the test lets it go.
        const hold = defineTool({
            name: 'hold',
            title: 'Hold',
            description: 'Answers when released.',
            inputSchema: z.object({}),
            taskSupport: 'forbidden',
            run: () => new Promise(resolve => (release = () => resolve(textResult('released')))),
        });
        core = createTasksServer({ logger: silentLogger, tools: [hold] });
        sessions = new HttpSessions(core, { idleMs: IDLE_MS, bindTo: 'session' }, silentLogger, systemClock);
    });

    afterEach(async () => {
        sessions.close('test over');
        mock.timers.reset();
        await core.close();
    });

    it('closes a session with no request for longer than the limit, and not before', () => {
        const entry = sessions.open(CALLER);
        mock.timers.tick(IDLE_MS);
        assert.equal(sessions.get(entry.id), entry, 'exactly at the limit it is not yet idle');
        mock.timers.tick(SWEEP_MS);
        assert.equal(sessions.get(entry.id), undefined);
        assert.equal(sessions.size, 0);
        assert.ok(entry.session.isClosed, 'its MCP session is closed too');
    });

    it('counts from the last request: activity postpones the close', () => {
        const entry = sessions.open(CALLER);
        mock.timers.tick(IDLE_MS - SWEEP_MS);
        entry.touch();
        mock.timers.tick(IDLE_MS);
        assert.equal(sessions.get(entry.id), entry, 'exactly one limit after the touch it is kept');
        mock.timers.tick(SWEEP_MS);
        assert.equal(sessions.get(entry.id), undefined);
    });

    it('keeps a session while one of its requests is in flight, however long, then closes it once idle', async () => {
        const entry = sessions.open(CALLER);
        const reply = new Collector();
        const answered = entry.session.rpc.answer({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold', arguments: {} } }, reply);
        assert.ok(entry.session.busy, 'a request is in flight from the moment it is taken');
        mock.timers.tick(IDLE_MS * 20);
        assert.equal(sessions.get(entry.id), entry, 'a session waiting in a request is not idle');

        release();
        await answered;
        assert.deepEqual(reply.messages, [{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'released' }] } }]);
        // The request ended long after the last activity was recorded: it goes at the next sweep.
        mock.timers.tick(SWEEP_MS);
        assert.equal(sessions.get(entry.id), undefined);
    });

    it('sweeps only the idle ones among many', () => {
        const quiet = Array.from({ length: 50 }, () => sessions.open(CALLER));
        mock.timers.tick(IDLE_MS / 2);
        const active = Array.from({ length: 50 }, () => sessions.open(CALLER));
        mock.timers.tick(IDLE_MS / 2 + SWEEP_MS);
        assert.equal(sessions.size, 50);
        assert.ok(quiet.every(entry => sessions.get(entry.id) === undefined));
        assert.ok(active.every(entry => sessions.get(entry.id) === entry));
    });

    it('stops its sweep timer on close', () => {
        // The default clock, counting the intervals it leaves running.
        const live = new Set<ClockTimer>();
        const counting: Clock = {
            ...systemClock,
            setInterval(callback, ms, unref) {
                const handle = systemClock.setInterval(callback, ms, unref);
                live.add(handle);
                return handle;
            },
            clearInterval(handle) {
                live.delete(handle!);
                systemClock.clearInterval(handle);
            },
        };
        const own = new HttpSessions(core, { idleMs: IDLE_MS, bindTo: 'session' }, silentLogger, counting);
        const entry = own.open(CALLER);
        assert.equal(live.size, 1);
        own.close('closing');
        assert.equal(live.size, 0);
        assert.ok(entry.session.isClosed);
        assert.equal(own.size, 0);
    });
});
