import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Changes, promisesDrained, waitUntil } from './wait.js';

export const RELATED = 'io.modelcontextprotocol/related-task';
export const TERMINAL = ['completed', 'failed', 'cancelled'] as const;

export type Message = Record<string, unknown> & { id?: string | number; method?: string; params?: Record<string, unknown> };

export interface Seen {
    /** performance.now() when the message crossed the client's transport. */
    at: number;
    dir: 'in' | 'out';
    message: Message;
}

/** The task a message belongs to: a status notification's taskId, or the related-task `_meta`. */
export function taskIdOf(message: Message): string | undefined {
    const params = message.params;
    if (message.method === 'notifications/tasks/status' && typeof params?.taskId === 'string') {
        return params.taskId;
    }
    const meta = (params?._meta ?? (message.result as Message | undefined)?._meta) as Record<string, { taskId?: string }> | undefined;
    return meta?.[RELATED]?.taskId;
}

export function relatedOf(message: Message): unknown {
    return (message.params?._meta as Record<string, unknown> | undefined)?.[RELATED];
}

/**
 * Records every JSON-RPC message an SDK Client's transport receives and sends, by wrapping the
 * transport after connect (the SDK hides notifications it has no handler for, and progress for
 * tokens it did not issue).
 */
export class MessageTap {
    readonly seen: Seen[] = [];
    /** Fires on every message either way. */
    readonly changes = new Changes();

    static attach(client: Client): MessageTap {
        const transport = client.transport;
        if (!transport) {
            throw new Error('client is not connected');
        }
        const tap = new MessageTap();
        const onmessage = transport.onmessage;
        transport.onmessage = (message, extra) => {
            tap.seen.push({ at: performance.now(), dir: 'in', message: message as Message });
            onmessage?.call(transport, message, extra);
            // After the SDK's handlers (they run a few promise ticks later) have seen it too.
            void promisesDrained().then(() => tap.changes.notify());
        };
        const send = transport.send.bind(transport);
        transport.send = (message, options) => {
            tap.seen.push({ at: performance.now(), dir: 'out', message: message as Message });
            void promisesDrained().then(() => tap.changes.notify());
            return send(message, options);
        };
        return tap;
    }

    /** Sends a raw message on the client's transport, bypassing the SDK (e.g. a late answer). */
    static send(client: Client, message: JSONRPCMessage): Promise<void> {
        return client.transport!.send(message);
    }

    incoming(): Seen[] {
        return this.seen.filter(s => s.dir === 'in');
    }

    /** Notifications and requests the server sent about a task (responses excluded). */
    aboutTask(taskId: string): Seen[] {
        return this.incoming().filter(s => s.message.method !== undefined && taskIdOf(s.message) === taskId);
    }

    statusNotes(taskId: string): Seen[] {
        return this.aboutTask(taskId).filter(s => s.message.method === 'notifications/tasks/status');
    }

    statuses(taskId: string): string[] {
        return this.statusNotes(taskId).map(s => String(s.message.params?.status));
    }

    progressFor(taskId: string): Seen[] {
        return this.aboutTask(taskId).filter(s => s.message.method === 'notifications/progress');
    }

    requests(method: string, taskId?: string): Seen[] {
        return this.incoming().filter(s => s.message.method === method && s.message.id !== undefined && (taskId === undefined || taskIdOf(s.message) === taskId));
    }

    notifications(method: string): Seen[] {
        return this.incoming().filter(s => s.message.method === method && s.message.id === undefined);
    }

    sent(method: string): Seen[] {
        return this.seen.filter(s => s.dir === 'out' && s.message.method === method);
    }

    waitForStatus(taskId: string, status: string, timeoutMs?: number): Promise<Seen> {
        return this.until(() => this.statusNotes(taskId).find(s => s.message.params?.status === status), `a ${status} status notification for ${taskId}`, timeoutMs);
    }

    /** Resolves once `check` over what was seen holds, re-checking on each message. */
    until<T>(check: () => T, what: string, timeoutMs?: number): Promise<NonNullable<T>> {
        return waitUntil(check, what, { on: this.changes, timeoutMs });
    }

    /** Every server-to-client message about the task that came after its first terminal status notification. */
    afterTerminal(taskId: string): Seen[] {
        const about = this.aboutTask(taskId);
        const index = about.findIndex(s => s.message.method === 'notifications/tasks/status' && TERMINAL.includes(s.message.params?.status as never));
        return index < 0 ? [] : about.slice(index + 1);
    }
}

export async function startTask(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<string> {
    const { task } = await client.request({ method: 'tools/call', params: { name, arguments: args, task: {}, ...(meta ? { _meta: meta } : {}) } }, CreateTaskResultSchema);
    assert.equal(task.status, 'working');
    return task.taskId;
}

/** VS Code's loop: tasks/get only, until the task is terminal. */
export async function pollUntilTerminal(client: Client, taskId: string): Promise<string> {
    return waitUntil(
        async () => {
            const { status } = await client.experimental.tasks.getTask(taskId);
            return ['completed', 'failed', 'cancelled'].includes(status) ? status : undefined;
        },
        `task ${taskId} to end`,
    );
}

/**
 * A marker: a task that ends at once, and its completed notification. The server sends on one
 * stream in order and handles one connection's messages in order, so whatever it sent or did
 * before has arrived or happened when this resolves: "nothing more came" needs no quiet window.
 */
export async function marker(client: Client, tap: MessageTap): Promise<void> {
    const taskId = await startTask(client, 'slow_compute', { seconds: 0, label: 'marker' });
    await tap.waitForStatus(taskId, 'completed');
}

/**
 * Runs finished tasks until a status notification of one arrives, proving the notification path
 * is live (HTTP: the GET stream is open). Nothing says when the SDK's GET stream is up, so each
 * round starts another task; a notification of any earlier round counts too.
 */
export async function warmUp(client: Client, tap: MessageTap): Promise<void> {
    const started: string[] = [];
    const arrived = () => started.some(id => tap.statuses(id).includes('completed'));
    for (let round = 0; round < 60; round++) {
        started.push(await startTask(client, 'slow_compute', { seconds: 0, label: 'warm-up' }));
        if (await tap.until(arrived, 'a warm-up notification', 500).catch(() => false)) {
            return;
        }
    }
    throw new Error('no status notification ever arrived');
}
