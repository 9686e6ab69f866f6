import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { waitUntil } from './helpers.js';

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
        };
        const send = transport.send.bind(transport);
        transport.send = (message, options) => {
            tap.seen.push({ at: performance.now(), dir: 'out', message: message as Message });
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

    async waitForStatus(taskId: string, status: string, timeoutMs = 5000): Promise<Seen> {
        return waitUntil(() => this.statusNotes(taskId).find(s => s.message.params?.status === status), timeoutMs, `a ${status} status notification for ${taskId}`);
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
export async function pollUntilTerminal(client: Client, taskId: string, timeoutMs = 5000): Promise<string> {
    return waitUntil(
        async () => {
            const { status } = await client.experimental.tasks.getTask(taskId);
            return ['completed', 'failed', 'cancelled'].includes(status) ? status : undefined;
        },
        timeoutMs,
        `task ${taskId} to end`,
    );
}

/** Runs a finished task and waits until its status notification arrives, proving the notification path is live (HTTP: the GET stream is open). */
export async function warmUp(client: Client, tap: MessageTap): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
        const taskId = await startTask(client, 'slow_compute', { seconds: 0, label: 'warm-up' });
        try {
            await tap.waitForStatus(taskId, 'completed', 250);
            return;
        } catch {
            // the stream was not open yet; try again
        }
    }
    throw new Error('no status notification ever arrived');
}
