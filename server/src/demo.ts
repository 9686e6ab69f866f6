import type { TasksServerOptions } from './server.js';
import { defaultTools } from './tools/index.js';
import { SERVER_VERSION } from './version.js';

/** What the mcp-tasks-server CLI serves: the demo tools (unless turned off), under the demo's name and instructions. */
export function demoServerOptions(taskTools = true, demoTools = true): Required<Pick<TasksServerOptions, 'serverInfo' | 'instructions' | 'tools'>> {
    const demos = demoTools
        ? ' The built-in tools (greet, slow_compute, failing_job, confirm_delete, write_haiku, external_job, deploy) are demonstrations that do no real work: ' +
          'use them only to try tasks out, never for a real request. greet answers immediately.'
        : '';
    const background = taskTools
        ? ' A client that cannot use tasks, or does not want to wait, starts any of them with start_<tool> (same arguments), follows it with get_task and stops it with cancel_task.'
        : '';
    return {
        serverInfo: { name: 'mcp-tasks', title: 'MCP Tasks', version: SERVER_VERSION },
        instructions: 'MCP Tasks server. Long-running tools run as MCP tasks: the call returns a task at once; poll tasks/get or wait on tasks/result.' + demos + background,
        tools: demoTools ? defaultTools() : [],
    };
}
