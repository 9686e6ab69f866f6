/** The public API of @mcp-tasks/server: everything else in this package is internal. */
export { createTasksServer, TasksServer, DEFAULT_LIMITS, type TasksServerOptions, type ServerInfo } from './server.js';
export { listenHttp, type HttpHandle, type HttpOptions } from './transports/http.js';
export { connectStdio, type StdioConnection, type StdioOptions } from './transports/stdio.js';
export { MemoryTaskStore } from './tasks/memoryStore.js';
export { systemClock, type Clock, type ClockTimer } from './util/clock.js';
export { TaskRuntime, OWNER_PROGRESS_METHOD, TASK_STATUS_METHOD, type RuntimeLimits } from './tasks/runtime.js';
export { PARENT_TASK_META_KEY, RELATED_TASK_META_KEY, TASK_INFO_META_KEY, toWireTask } from './tasks/wire.js';
export type { ClientIdentity, ClientLink } from './tasks/hub.js';
export type { TaskStore, TaskRecord, TaskStatus, TaskOutcome, TaskEvent, TaskPage, ListQuery, NewTask, ProgressUpdate } from './tasks/types.js';
export { isTerminal } from './tasks/types.js';
export { defaultTools } from './demo/tools.js';
export { SimulatedJobSystem } from './demo/simulatedJobs.js';
export {
    defineTool,
    sleep,
    textResult,
    type ToolDefinition,
    type ToolContext,
    type ExternalTaskHandler,
    type ExternalStatus,
    type CallToolResult,
    type TaskSupport,
    type ChildTask,
    type SpawnOptions,
} from './tools/types.js';
export type {
    ContentBlock,
    TextContent,
    ToolAnnotations,
    ElicitRequestFormParams,
    ElicitResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    SamplingMessage,
} from './mcpTypes.js';
export { ChildTaskError, SpawnError, join, type SpawnRefusal } from './tools/subtasks.js';
export { ErrorCodes, RpcError } from './rpc/errors.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './util/log.js';
export { newSecret, PROTOCOL_2025, type TaskInfo } from './contract.js';
export { SERVER_VERSION } from './version.js';
