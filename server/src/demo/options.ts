import type { TasksServerOptions } from '../server.js';
import { defaultTools } from './tools.js';
import { SERVER_VERSION } from '../version.js';

/** What the mcp-tasks-server CLI serves: the demo tools (unless turned off), under the demo's name and instructions. */
export function demoServerOptions(taskTools = true, demoTools = true): Required<Pick<TasksServerOptions, 'serverInfo' | 'instructions' | 'tools'>> {
    const demos = demoTools
        ? ' The built-in tools (greet, slow_compute, failing_job, confirm_delete, write_haiku, external_job, deploy) are demonstrations that do no real work: ' +
          'use them only to try tasks out, never for a real request. greet answers immediately.'
        : '';
    // For the model, which calls tools and nothing else: the tools to call, never a protocol method.
    const how = taskTools
        ? ' Long-running tools can run in the background: call start_<tool> with the same arguments to get a task id at once, ' +
          'then get_task with that task_id (wait_seconds waits for the end) for its progress and result; cancel_task stops it, list_tasks lists your tasks.'
        : ' Long-running tools run as tasks, which your client follows until they end.';
    return {
        serverInfo: { name: 'mcp-tasks', title: 'MCP Tasks', version: SERVER_VERSION },
        instructions: 'MCP Tasks server.' + how + demos,
        tools: demoTools ? defaultTools() : [],
    };
}
