import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';

// The SDK's own Task schema drops _meta (tool, arguments, client, parent); these keep every field the server sent.
export const LooseTask = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), _meta: z.record(z.string(), z.unknown()).optional() });
export const LooseTaskList = z.object({ tasks: z.array(LooseTask), nextCursor: z.string().optional() });
export type LooseTask = z.infer<typeof LooseTask>;

/** Every task `client` may see, through tasks/list page by page. */
export async function listAllTasks(client: Client): Promise<LooseTask[]> {
    const all: LooseTask[] = [];
    let cursor: string | undefined;
    do {
        const page = await client.request({ method: 'tasks/list', params: cursor ? { cursor } : {} }, LooseTaskList);
        all.push(...page.tasks);
        cursor = page.nextCursor;
    } while (cursor);
    return all;
}
