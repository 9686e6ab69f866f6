import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Fleet } from '../../support/fleet.js';
import { secret, textOf, type HttpServer } from '../../support/helpers.js';
import { redisSkipReason, type RedisServer } from '../../support/redisHelpers.js';
import { startSlowTask } from '../../support/taskCalls.js';
import { waitUntil } from '../../support/wait.js';

const skip = redisSkipReason();

/**
 * A replica that dies and comes back. Under the same --worker-id the new process renews the very
 * lease the old one held, so the lease alone never lapses: the new process must end what the old
 * one left running. The lease here is a minute, far longer than the test takes, so only the
 * restart can have ended those tasks (their words say which path did).
 */
describe('a replica SIGKILLed and restarted', { skip }, () => {
    const token = secret();
    const fleet = Fleet.forSuite();
    let redis: RedisServer;
    let survivor: HttpServer;
    const prefix = `restart-${randomUUID()}:`;

    /** Every replica started, so a test can look in whichever one's reaper acted. */
    const replicas: HttpServer[] = [];
    const replica = async (args: string[]) => {
        const server = await fleet.server(['--store', redis.url, '--store-prefix', prefix, '--token', token, ...args]);
        replicas.push(server);
        return server;
    };

    before(async () => {
        redis = await fleet.redis();
        survivor = await replica(['--worker-id', 'survivor', '--worker-lease', '60s']);
    });

    it('under the same --worker-id: its running tasks fail at once with words, through the other replica, and the decision is logged', async () => {
        const first = await replica(['--worker-id', 'fixed', '--worker-lease', '60s']);
        const onFirst = await fleet.client(first, { token });
        const onSurvivor = await fleet.client(survivor, { token });
        const running = await Promise.all([1, 2, 3].map(n => startSlowTask(onFirst.client, 120, `left-${n}`)));
        const waiting = onSurvivor.client.experimental.tasks.getTaskResult(running[0]!.taskId, CallToolResultSchema);

        await first.stop('SIGKILL');
        const second = await replica(['--worker-id', 'fixed', '--worker-lease', '60s']);

        const result = await waiting;
        assert.equal(result.isError, true);
        assert.equal(textOf(result), 'Task failed: Replica fixed restarted; the work of this task was lost with its previous process');
        for (const { taskId } of running) {
            const task = await onSurvivor.client.experimental.tasks.getTask(taskId);
            assert.equal(task.status, 'failed', taskId);
            assert.equal(task.statusMessage, 'Replica fixed restarted; the work of this task was lost with its previous process');
        }
        await second.log.waitFor(/\[store\] worker fixed restarted: failed the 3 task\(s\) its previous process left running \(.+\); their work was lost with that process/);
        assert.equal(await redis.cli('SCARD', `${prefix}run:fixed`), '0', 'nothing is left under the id for the lease to cover');

        // The new process runs work under the id as before.
        const onSecond = await fleet.client(second, { token });
        const fresh = await startSlowTask(onSecond.client, 0, 'after-restart');
        const done = await onSurvivor.client.experimental.tasks.getTaskResult(fresh.taskId, CallToolResultSchema);
        assert.equal(textOf(done), 'Computation "after-restart" completed after 0 seconds. Result: 42.');
    });

    it('with the default worker id: the lease lapses and the other replica fails them with words', async () => {
        const first = await replica(['--worker-lease', '1s']);
        const onFirst = await fleet.client(first, { token });
        const onSurvivor = await fleet.client(survivor, { token });
        const running = await Promise.all([1, 2].map(n => startSlowTask(onFirst.client, 120, `default-${n}`)));
        const waiting = onSurvivor.client.experimental.tasks.getTaskResult(running[0]!.taskId, CallToolResultSchema);

        await first.stop('SIGKILL');
        await replica(['--worker-lease', '1s']);

        const result = await waiting;
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^Task failed: Worker \S+ stopped responding \(no heartbeat within its 1000 ms lease\); the work of this task was lost$/);
        for (const { taskId } of running) {
            const task = await onSurvivor.client.experimental.tasks.getTask(taskId);
            assert.equal(task.status, 'failed', taskId);
            assert.match(task.statusMessage ?? '', /stopped responding/);
        }
        const lapsed = /\[store\] worker \S+ stopped responding \(its lease lapsed\): failed the 2 task\(s\) it was running/;
        await waitUntil(() => replicas.some(server => server.log.lines.some(line => lapsed.test(line))), 'a replica logs the lapsed lease');
    });

    it('two live processes under one id: the older one says so in its log', async () => {
        const older = await replica(['--worker-id', 'twice', '--worker-lease', '600ms']);
        await replica(['--worker-id', 'twice', '--worker-lease', '600ms']);
        await older.log.waitFor(/\[store\] another process started as worker twice and failed the tasks this one was running; each replica needs its own --worker-id/);
    });
});
