/**
 * Task records whose field lists the compiler checks: a field left out of a copy fails to compile
 * (the @ts-expect-error lines below are errors `npm run typecheck` requires), and every field a
 * task is created with reaches its record, its copies and the owner's view.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskFlags, TaskInfo } from '../../../../server/src/contract.js';
import { copyFlags, recordBase, taskRecord, type Complete } from '../../../../server/src/tasks/records.js';
import type { NewTask, TaskRecord } from '../../../../server/src/tasks/types.js';
import { taskInfo } from '../../../../server/src/tasks/wire.js';

/** Every field set (Complete: a field added to NewTask must be added here, and is then checked below). */
const input = {
    clientKey: 'client-1',
    clientName: 'Test Client',
    toolName: 'deploy',
    args: { target: 'staging' },
    ttl: 60_000,
    pollInterval: 1000,
    parentTaskId: 'parent-1',
    progressToken: 'p-1',
    worker: 'worker-1',
    background: true,
    chat: true,
} satisfies Complete<NewTask>;

describe('task records', () => {
    it('a record keeps every field it was created with, through each copy', () => {
        const base = recordBase(input, 'task-1', '2026-12-06T00:00:00.000Z');
        const record = taskRecord(base, 'working', 'starting', '2026-12-06T00:00:01.000Z', 'ref-1', 7);
        const copy = taskRecord(record, 'completed', 'done', '2026-12-06T00:00:02.000Z', record.externalRef, record.seq);
        for (const [key, value] of Object.entries(input)) {
            assert.deepEqual(record[key as keyof TaskRecord], value, `the record keeps ${key}`);
            assert.deepEqual(copy[key as keyof TaskRecord], value, `a copy keeps ${key}`);
        }
        assert.deepEqual([copy.taskId, copy.createdAt, copy.externalRef, copy.seq, copy.status], ['task-1', '2026-12-06T00:00:00.000Z', 'ref-1', 7, 'completed']);
    });

    it("the owner's view carries the record's fields and set flags, no empty ones", () => {
        const record = taskRecord(recordBase(input, 'task-1', 'now'), 'working', undefined, 'now', undefined, 1);
        const info = taskInfo(record, { keyArgumentOf: () => 'target', stoppedWaitingAt: () => 'then' });
        assert.deepEqual(JSON.parse(JSON.stringify(info)), { toolName: 'deploy', args: { target: 'staging' }, clientName: 'Test Client', worker: 'worker-1', keyArgument: 'staging', stoppedWaitingAt: 'then', background: true, chat: true });
        const plain = taskRecord(recordBase({ ...input, background: false, chat: undefined }, 't', 'now'), 'working', undefined, 'now', undefined, 1);
        assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(taskInfo(plain, { keyArgumentOf: () => undefined })))), ['toolName', 'args', 'clientName', 'worker']);
    });

    it('copyFlags copies every flag that is set, and only those', () => {
        const to: TaskFlags = {};
        copyFlags({ background: true, chat: false }, to);
        assert.deepEqual(to, { background: true });
    });

    it('a field list that leaves a field out, or adds one, does not compile', () => {
        const flags = { background: true, chat: undefined } satisfies Complete<TaskFlags>;
        // @ts-expect-error chat is left out: a flag added to the contract must be listed
        const missing = { background: true } satisfies Complete<TaskFlags>;
        // @ts-expect-error a field the contract's TaskInfo does not have
        const extra = { toolName: 't', args: {}, clientName: undefined, worker: undefined, keyArgument: undefined, stoppedWaitingAt: undefined, background: undefined, chat: undefined, colour: 'red' } satisfies Complete<TaskInfo>;
        assert.ok(flags && missing && extra);
    });
});
