// Hand-written checks of what the server sends, where the extension relies on the shape. Each
// returns the value typed, or throws an RpcError naming what was wrong (no schema library).
import type { CallToolResult, CreateMessageRequest, ElicitRequest, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OwnerJobStart } from '@mcp-tasks/server/contract';
import { isRecord } from './jsonRpc';
import { RpcError, RpcErrorCodes } from './rpcError';

/** A task as the wire carries it: an id and a status, the rest passed through. */
export type LooseTask = Record<string, unknown> & { taskId: string; status: string };

export function isLooseTask(value: unknown): value is LooseTask {
    return isRecord(value) && typeof value.taskId === 'string' && typeof value.status === 'string';
}

function malformed(what: string): Error {
    return new Error(`The MCP Tasks server sent a malformed ${what}`);
}

export function asTask(value: unknown, what: string): LooseTask {
    if (!isLooseTask(value)) {
        throw malformed(what);
    }
    return value;
}

export function asTaskPage(value: unknown): { tasks: LooseTask[]; nextCursor?: string } {
    if (!isRecord(value) || !Array.isArray(value.tasks) || !value.tasks.every(isLooseTask) || (value.nextCursor !== undefined && typeof value.nextCursor !== 'string')) {
        throw malformed('tasks/list result');
    }
    return { tasks: value.tasks, nextCursor: value.nextCursor };
}

export function asCreatedTask(value: unknown): LooseTask {
    return asTask(isRecord(value) ? value.task : undefined, 'tools/call task result');
}

export function asToolResult(value: unknown, what: string): CallToolResult {
    if (!isRecord(value) || !Array.isArray(value.content) || !value.content.every(isRecord)) {
        throw malformed(what);
    }
    return value as CallToolResult;
}

export function asTools(value: unknown): Tool[] {
    if (!isRecord(value) || !Array.isArray(value.tools) || !value.tools.every(tool => isRecord(tool) && typeof tool.name === 'string' && isRecord(tool.inputSchema))) {
        throw malformed('tools/list result');
    }
    return value.tools as Tool[];
}

/** The owner-only progress notification's params, or undefined when they are not usable. */
export function ownerProgress(params: Record<string, unknown>): { taskId: string; progress: number; total?: number; message?: string } | undefined {
    const { taskId, progress, total, message } = params;
    if (typeof taskId !== 'string' || typeof progress !== 'number' || (total !== undefined && typeof total !== 'number') || (message !== undefined && typeof message !== 'string')) {
        return undefined;
    }
    return { taskId, progress, total, message };
}

function invalid(what: string, why: string): RpcError {
    return new RpcError(RpcErrorCodes.InvalidParams, `Invalid ${what} request: ${why}`);
}

/** elicitation/create params, with `mode` defaulted to "form" as the spec says. */
export function asElicitParams(params: Record<string, unknown>): ElicitRequest['params'] {
    if (typeof params.message !== 'string') {
        throw invalid('elicitation', 'message must be a string');
    }
    const mode = params.mode ?? 'form';
    if (mode === 'form') {
        if (!isRecord(params.requestedSchema) || !isRecord(params.requestedSchema.properties)) {
            throw invalid('elicitation', 'a form needs requestedSchema with properties');
        }
    } else if (mode === 'url') {
        if (typeof params.url !== 'string' || typeof params.elicitationId !== 'string') {
            throw invalid('elicitation', 'a URL elicitation needs url and elicitationId');
        }
    } else {
        throw invalid('elicitation', `unknown mode ${JSON.stringify(mode)}`);
    }
    return { ...params, mode } as ElicitRequest['params'];
}

export function asSamplingParams(params: Record<string, unknown>): CreateMessageRequest['params'] {
    if (!Array.isArray(params.messages) || !params.messages.every(m => isRecord(m) && (m.role === 'user' || m.role === 'assistant') && (isRecord(m.content) || Array.isArray(m.content)))) {
        throw invalid('sampling', 'messages must be a list of user and assistant messages');
    }
    if (typeof params.maxTokens !== 'number') {
        throw invalid('sampling', 'maxTokens must be a number');
    }
    return params as CreateMessageRequest['params'];
}

/** `ownerJobStart` params as the server sends them. */
export function asOwnerJobStart(raw: unknown): OwnerJobStart {
    const params = raw as Partial<OwnerJobStart> | undefined;
    if (typeof params?.kind !== 'string' || typeof params.key !== 'string' || typeof params.taskId !== 'string') {
        throw new RpcError(RpcErrorCodes.InvalidParams, 'ownerJob start: expected { kind, key, args, taskId }');
    }
    return { kind: params.kind, key: params.key, taskId: params.taskId, args: typeof params.args === 'object' && params.args !== null ? params.args : {} };
}

/** The `ref` of an ownerJob status or cancel request. */
export function jobRef(raw: unknown): string {
    const ref = (raw as { ref?: unknown } | undefined)?.ref;
    if (typeof ref !== 'string') {
        throw new RpcError(RpcErrorCodes.InvalidParams, 'ownerJob: expected { ref }');
    }
    return ref;
}
