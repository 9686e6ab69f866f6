// The wire contract the server and the extension both spell: method names, `_meta` keys, the
// protocol version, JSON-RPC message shapes, task statuses and the owner's task-info shape. No imports at all, so the
// extension bundles it without pulling in the server (`@mcp-tasks/server/contract`).

/**
 * The protocol revisions this server speaks, all listed here and nowhere else. They are named by
 * their dates in code and docs alike. 2025-11-25 (MCP Tasks v1): `initialize` opens a session,
 * and the older versions a client may ask for negotiate down to it. 2026-07-28 (SEP-2575): no
 * session, every request names its version in `_meta`, and Tasks is an extension.
 */
export const PROTOCOL_2025 = '2025-11-25';
/** Every version `initialize` accepts, newest first (SDK 1.32.2's SUPPORTED_PROTOCOL_VERSIONS, without loading its schema module, some 30 ms of start-up). */
export const PROTOCOL_2025_VERSIONS: readonly string[] = [PROTOCOL_2025, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
export const PROTOCOL_2026 = '2026-07-28';
/** The two revisions the server speaks, by the date of each: every version of PROTOCOL_2025_VERSIONS is served by the first. */
export type RevisionName = typeof PROTOCOL_2025 | typeof PROTOCOL_2026;
/** What server/discover and UnsupportedProtocolVersionError list: 2026-07-28, and 2025-11-25 (after initialize). */
export const ADVERTISED_VERSIONS: readonly string[] = [PROTOCOL_2026, PROTOCOL_2025];
/** Where a 2026-07-28 request carries its protocol version, capabilities and client name, and a result the server's. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export const Methods = {
    taskStatus: 'notifications/tasks/status',
    /** Not in the spec: progress of every task, sent to owner connections only. */
    ownerProgress: 'notifications/mcp-tasks/progress',
    progress: 'notifications/progress',
    tasksGet: 'tasks/get',
    tasksResult: 'tasks/result',
    tasksList: 'tasks/list',
    tasksCancel: 'tasks/cancel',
    /**
     * 2026-07-28's answer to a task's inputRequests. In a 2025-11-25 session only the owner may
     * send it: the sidebar answers a 2026-07-28 client's task with it (see INPUT_REQUESTS_META_KEY).
     */
    tasksUpdate: 'tasks/update',
    initialize: 'initialize',
    initialized: 'notifications/initialized',
    ping: 'ping',
    cancelled: 'notifications/cancelled',
    toolsList: 'tools/list',
    toolsCall: 'tools/call',
    elicitationCreate: 'elicitation/create',
    samplingCreateMessage: 'sampling/createMessage',
    /** Not in the spec: server → owner, for an external job the owner runs (an OwnerJobStart; answers { ref }). */
    ownerJobStart: 'mcp-tasks/ownerJob/start',
    /** Server → owner: an OwnerJobStatus for `{ ref }`; with `wait: true` answered only once the job has ended. */
    ownerJobStatus: 'mcp-tasks/ownerJob/status',
    /** Server → owner: stop the job `{ ref }`; answered once it has ended. */
    ownerJobCancel: 'mcp-tasks/ownerJob/cancel',
} as const;

/** JSON-RPC 2.0 error codes (the numbers from the spec) that both sides spell. */
export const JsonRpcErrorCodes = {
    ParseError: -32700,
    InvalidRequest: -32600,
    MethodNotFound: -32601,
    InvalidParams: -32602,
    InternalError: -32603,
} as const;

/** JSON-RPC 2.0 message shapes, as both sides send and read them (checked by hand where they arrive). */
export type RequestId = string | number;

export interface JsonRpcRequest {
    jsonrpc: '2.0';
    id: RequestId;
    method: string;
    params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
    jsonrpc: '2.0';
    method: string;
    params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
    code: number;
    message: string;
    data?: unknown;
}

/** `id` is null only in an error answering a message whose id could not be read. */
export interface JsonRpcResponse {
    jsonrpc: '2.0';
    id: RequestId | null;
    result?: Record<string, unknown>;
    error?: JsonRpcErrorObject;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The Streamable HTTP headers that carry the session and the negotiated protocol version. */
export const HttpHeaders = {
    sessionId: 'mcp-session-id',
    protocolVersion: 'mcp-protocol-version',
} as const;

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
/** Not in the v1 spec: a child task names its parent under this `_meta` key (and `tasks/list` filters by it). */
export const PARENT_TASK_META_KEY = 'dev.mcp-tasks/parent-task-id';
/** In `tools/list`: marks the task tools (start_<tool>, get_task, …), which are for models, not for a person's tool picker. */
export const TASK_TOOL_META_KEY = 'dev.mcp-tasks/task-tool';
/** Sent to the owner only: what the task runs and for whom (a TaskInfo). */
export const TASK_INFO_META_KEY = 'dev.mcp-tasks/task-info';

/**
 * Not in the spec: in the owner's `tasks/get` of a 2026-07-28 client's task, the task's open
 * inputRequests (key → { method, params }), which the owner may answer with `tasks/update`.
 */
export const INPUT_REQUESTS_META_KEY = 'dev.mcp-tasks/input-requests';

/** One open input request of a 2026-07-28 task: an elicitation/create or sampling/createMessage, as it would be sent. */
export interface OpenInputRequest {
    method: string;
    params: Record<string, unknown>;
}

/** Where the extension hands the server its secrets and the stdio owner-announce file. */
export const Env = {
    clientTokens: 'MCP_TASKS_TOKEN',
    ownerToken: 'MCP_TASKS_OWNER_TOKEN',
    ownerAnnounce: 'MCP_TASKS_OWNER_ANNOUNCE',
    /** A JSON array of `{ taskId, toolName }`: tasks the previous server lost in a crash (server/src/tasks/lostTasks.ts). */
    lostTasks: 'MCP_TASKS_LOST_TASKS',
} as const;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TerminalStatus = 'completed' | 'failed' | 'cancelled';
export type LiveStatus = 'working' | 'input_required';

export function isTerminal(status: TaskStatus): status is TerminalStatus {
    return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * How a task was started, fixed at its creation: kept in its record and shown to the owner. A
 * new flag is declared here and copied in `server/src/tasks/records.ts`; the caller that knows it
 * passes it to `createTask`.
 */
export interface TaskFlags {
    /** Started by a model through a task tool (`start_<tool>`): nobody waits on it in a chat turn. */
    background?: boolean;
    /**
     * Called from a chat conversation: the call's `_meta` named one (VS Code's
     * `vscode.conversationId`), so that client asks this task's questions in the chat, not in a
     * notification.
     */
    chat?: boolean;
}

/** `_meta[TASK_INFO_META_KEY]` of a task sent to the owner. */
export interface TaskInfo extends TaskFlags {
    toolName: string;
    args: Record<string, unknown>;
    /** The creating client's `clientInfo.name`. */
    clientName?: string;
    /** Which server process runs the work. */
    worker?: string;
    /** The value of the tool's key argument (a label, topic, file, job id) that names this invocation. */
    keyArgument?: string;
    /**
     * When the client that started this live task stopped waiting for it (ISO time): it missed
     * several polls in a row (VS Code when its chat request is stopped). Gone when it polls again.
     */
    stoppedWaitingAt?: string;
}

/**
 * An owner that runs external jobs says so in initialize, under `capabilities.experimental`:
 * `{ [OWNER_JOBS_CAPABILITY]: { kinds: ["vscode-task"] } }`. Tools whose tasks are such jobs reach
 * it with the ownerJob* methods.
 */
export const OWNER_JOBS_CAPABILITY = 'dev.mcp-tasks/owner-jobs';

/** The kind of job the VS Code extension runs: a task from the workspace's tasks.json, by label. */
export const VSCODE_TASK_JOB = 'vscode-task';

/** `ownerJobStart` params. */
export interface OwnerJobStart {
    kind: string;
    /** Which job of that kind (for vscode-task: the task's label). */
    key: string;
    args: Record<string, unknown>;
    taskId: string;
}

/** `ownerJobStatus` result; `result` (a CallToolResult) once the job completed or failed. */
export interface OwnerJobStatus {
    status: 'working' | 'completed' | 'failed' | 'cancelled';
    statusMessage?: string;
    result?: { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
}

/** What the owner-announce file (stdio mode) holds: the owner endpoint of the server that wrote it. */
export interface OwnerAnnouncement {
    url: string;
    pid: number;
}

/** 256 bits from the platform CSPRNG, base64url: bearer tokens and other per-launch secrets. */
export function newSecret(bytes = 32): string {
    const raw = globalThis.crypto.getRandomValues(new Uint8Array(bytes));
    return Buffer.from(raw).toString('base64url');
}

/**
 * The body value a 2026-07-28 request's `Mcp-Name` header mirrors (SEP-2243, and SEP-2663 for the
 * task methods): the tool or prompt name, the resource URI or the task id; undefined for other methods.
 * The server checks the header against it and clients fill the header from it.
 */
export function mirroredName(method: string, params: Record<string, unknown> | undefined): unknown {
    switch (method) {
        case 'tools/call':
        case 'prompts/get':
            return params?.name;
        case 'resources/read':
            return params?.uri;
        case 'tasks/get':
        case 'tasks/update':
        case 'tasks/cancel':
            return params?.taskId;
        default:
            return undefined;
    }
}
