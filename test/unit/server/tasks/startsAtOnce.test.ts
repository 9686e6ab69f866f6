/**
 * When a task's work starts against a store that writes tasks to a file: work that ends with this
 * process starts before its task is written, so a task that ends at once is written once, as it
 * ended; a command's process, which outlives the server, and an external job start only once it is
 * written. Either way the creation is answered only after the write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ClientHub } from '../../../../server/src/tasks/hub.js';
import { MemoryTaskStore } from '../../../../server/src/tasks/memoryStore.js';
import { TaskRuntime } from '../../../../server/src/tasks/runtime.js';
import type { CreateOptions, NewTask, RetentionBudget, TaskRecord } from '../../../../server/src/tasks/types.js';
import { ToolRegistry } from '../../../../server/src/tools/registry.js';
import { defineTool, textResult, type ToolDefinition } from '../../../../server/src/tools/types.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { ManualClock } from '../../../support/manualClock.js';
import { promisesDrained } from '../../../support/wait.js';

/** The memory store, with a write to a file the test completes by hand, as the durable store's. */
class WritingStore extends MemoryTaskStore {
    readonly asked: { tool: string; startsAtOnce: boolean }[] = [];
    private readonly pending = new Map<string, () => void>();

    override async create(input: NewTask, maxLive: number, budget?: RetentionBudget, options?: CreateOptions): Promise<TaskRecord> {
        this.asked.push({ tool: input.toolName, startsAtOnce: options?.startsAtOnce === true });
        const record = await super.create(input, maxLive, budget);
        const write = new Promise<void>(resolve => this.pending.set(record.taskId, resolve));
        if (!options?.startsAtOnce) {
            await write;
        }
        return record;
    }

    written(taskId: string): Promise<void> | undefined {
        const resolve = this.pending.get(taskId);
        return resolve ? new Promise<void>(settled => this.pending.set(taskId, () => (resolve(), settled()))) : undefined;
    }

    /** The task's write is done. */
    write(taskId: string): void {
        this.pending.get(taskId)?.();
        this.pending.delete(taskId);
    }

    get waiting(): string[] {
        return [...this.pending.keys()];
    }
}

const LIMITS = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, maxTasksPerClient: 100, pollIntervalMs: 1000, maxSubtaskDepth: 4, maxChildrenPerTask: 16 };
const CLIENT = { clientKey: 'c', isOwner: false };

function tool(name: string, extra: Partial<ToolDefinition>, started: string[]): ToolDefinition {
    return defineTool({
        name,
        title: name,
        description: name,
        inputSchema: z.object({}),
        taskSupport: 'optional',
        async run() {
            started.push(name);
            return textResult('done');
        },
        ...extra,
    } as ToolDefinition);
}

async function stateOf(promise: Promise<unknown>): Promise<'pending' | 'settled'> {
    let state: 'pending' | 'settled' = 'pending';
    void promise.then(
        () => (state = 'settled'),
        () => (state = 'settled'),
    );
    await promisesDrained();
    return state;
}

describe('task work and the write of its task', () => {
    function setup(tools: ToolDefinition[]) {
        const clock = new ManualClock();
        const store = new WritingStore({ clock });
        const runtime = new TaskRuntime(store, new ToolRegistry(tools), new ClientHub(), LIMITS, createLogger('error', () => undefined), 'w1', clock);
        return { store, runtime };
    }

    it('in-process work starts before the write, ends before it here, and the creation is answered only once it is written', async () => {
        const started: string[] = [];
        const { store, runtime } = setup([tool('quick', {}, started)]);
        const creating = runtime.createTask(CLIENT, runtime.tools.get('quick')!, {}, {});
        await promisesDrained();
        assert.deepEqual(store.asked, [{ tool: 'quick', startsAtOnce: true }]);
        assert.deepEqual(started, ['quick'], 'the work ran before the task was written');
        const [taskId] = store.waiting;
        assert.equal((await store.get(taskId!))?.status, 'completed', 'and ended: its one write holds its end');
        assert.equal(await stateOf(creating), 'pending', 'not answered before the write');
        store.write(taskId!);
        const answered = await creating;
        assert.equal(answered.taskId, taskId);
        assert.equal(answered.status, 'completed', 'answered with where the task is now, not where it was created');
    });

    it("a command's process (it outlives the server) and an external job start only once their task is written", async () => {
        const started: string[] = [];
        const external = {
            start: async () => (started.push('job'), 'ref-1'),
            getStatus: async () => ({ status: 'working' as const }),
            getResult: async () => textResult('done'),
            cancel: async () => undefined,
        };
        const { store, runtime } = setup([tool('command', { outlivesServer: true }, started), tool('job', { external, run: undefined }, started)]);
        for (const name of ['command', 'job']) {
            const creating = runtime.createTask(CLIENT, runtime.tools.get(name)!, {}, {});
            await promisesDrained();
            assert.deepEqual(started, [], `${name}: nothing started before the write`);
            assert.deepEqual(store.asked.at(-1), { tool: name, startsAtOnce: false });
            store.write(store.waiting[0]!);
            await creating;
            await promisesDrained();
            assert.deepEqual(started, [name], `${name}: started once written`);
            started.length = 0;
        }
    });
});
