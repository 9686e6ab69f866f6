/** Task calls through an SDK client that the HTTP suites (security, redis) make the same way. */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type McpError } from '@modelcontextprotocol/sdk/types.js';

/** The error a promise rejects with, or a failure when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<McpError> {
    try {
        await promise;
    } catch (err) {
        return err as McpError;
    }
    assert.fail('expected the request to fail');
}

/** Starts slow_compute as a task (`task` holds the task params, e.g. a ttl) and returns the created task. */
export function startSlowTask(client: Client, seconds: number, label = 'sec', task: Record<string, unknown> = {}) {
    return client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds, label }, task } }, CreateTaskResultSchema).then(r => r.task);
}

/** Every task id tasks/list shows the client, page after page. */
export async function listAll(client: Client): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
        const page = await client.experimental.tasks.listTasks(cursor);
        ids.push(...page.tasks.map(t => t.taskId));
        cursor = page.nextCursor;
    } while (cursor);
    return ids;
}
