import type { ClientIdentity } from '../tasks/hub.js';
import type { TaskRuntime } from '../tasks/runtime.js';
import type { ToolDefinition } from '../tools/types.js';

/** Who calls a task tool (or reads a task's output): any request's context, either revision, as far as these tools need it. */
export interface TaskToolCaller {
    readonly services: { readonly runtime: TaskRuntime; readonly tools: { get(name: string): ToolDefinition | undefined } };
    readonly identity: ClientIdentity;
    /** Set for a 2026-07-28 request: its client is asked only within a call's own answer. */
    readonly envelope?: unknown;
}
