import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema, CreateMessageRequestSchema, type CallToolResult, type CreateMessageResult, type ElicitResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import * as vscode from 'vscode';
import { Methods, RELATED_TASK_META_KEY } from '@mcp-tasks/server/contract';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { TaskModel } from '../tasks/taskModel';

/** The name our client gives in initialize: tasks it starts show as "this editor". */
export const OWN_CLIENT_NAME = 'MCP Tasks for VS Code';
const RECONCILE_MS = 30_000;

const LooseTask = z.looseObject({ taskId: z.string(), status: z.string() });
const TaskList = z.object({ tasks: z.array(LooseTask), nextCursor: z.string().optional() });
const StatusNotification = z.object({ method: z.literal(Methods.taskStatus), params: LooseTask });
const OwnerProgressNotification = z.object({
    method: z.literal(Methods.ownerProgress),
    params: z.looseObject({ taskId: z.string(), progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
});
const CreateTaskResult = z.looseObject({ task: LooseTask });

export interface OwnerEndpoint {
    url: string;
    token: string;
    /** The server process; a restart on the same URL is still a new server. */
    pid?: number;
}

/** Answers the server's input requests for tasks of clients that cannot (and for our own). */
export interface InputHandlers {
    elicit(params: z.infer<typeof ElicitRequestSchema>['params'], context: { signal: AbortSignal; taskId?: string }): Promise<ElicitResult>;
    createMessage(params: z.infer<typeof CreateMessageRequestSchema>['params'], context: { signal: AbortSignal; taskId?: string }): Promise<CreateMessageResult>;
}

/**
 * The extension's own MCP client, authenticated as the owner: it sees every client's tasks
 * (Copilot's included), keeps the TaskModel current from pushed notifications, and can cancel.
 */
export class OwnerConnection extends Disposable {
    private client?: Client;
    private endpoint?: OwnerEndpoint;
    private generation = 0;
    private retryTimer?: NodeJS.Timeout;
    private attempt = 0;
    private readonly reconcileTimer: NodeJS.Timeout;
    private readonly stateChanged = this.register(new vscode.EventEmitter<boolean>());
    /** Fires true when connected, false when the connection is lost. */
    readonly onDidChangeState = this.stateChanged.event;

    constructor(
        private readonly model: TaskModel,
        private readonly log: ScopedLogger,
        private readonly input?: InputHandlers,
    ) {
        super();
        this.reconcileTimer = setInterval(() => void this.reconcile(), RECONCILE_MS);
        this.register({ dispose: () => clearInterval(this.reconcileTimer) });
        this.register({ dispose: () => void this.disconnect() });
    }

    get connected(): boolean {
        return this.client !== undefined;
    }

    /** Points the connection at a (new) server; undefined means the server is gone. */
    setEndpoint(endpoint: OwnerEndpoint | undefined): void {
        if (endpoint?.url === this.endpoint?.url && endpoint?.token === this.endpoint?.token && endpoint?.pid === this.endpoint?.pid) {
            return;
        }
        const hadServer = this.endpoint !== undefined;
        this.endpoint = endpoint;
        this.attempt = 0;
        void this.disconnect().then(() => {
            if (hadServer) {
                // An in-memory store died with its process: whatever still ran there is lost.
                this.model.markLost();
            }
            if (endpoint) {
                void this.connect();
            }
        });
    }

    async reconcile(): Promise<void> {
        const client = this.client;
        if (!client) {
            return;
        }
        try {
            const all: Record<string, unknown>[] = [];
            let cursor: string | undefined;
            do {
                const page = await client.request({ method: Methods.tasksList, params: cursor ? { cursor } : {} }, TaskList);
                all.push(...page.tasks);
                cursor = page.nextCursor;
            } while (cursor);
            this.model.reconcile(all);
        } catch (err) {
            this.log.warn(`reconcile failed: ${(err as Error).message}`);
        }
    }

    async listTools(): Promise<Tool[]> {
        return (await this.require().listTools()).tools;
    }

    async cancel(taskId: string): Promise<void> {
        const task = await this.require().request({ method: Methods.tasksCancel, params: { taskId } }, LooseTask);
        this.model.applyWire(task);
    }

    async result(taskId: string): Promise<CallToolResult> {
        return this.require().request({ method: Methods.tasksResult, params: { taskId } }, CallToolResultSchema, { timeout: 24 * 3600_000 });
    }

    /** Starts a tool as a task and returns its id (the model learns of it at once). */
    async startTask(name: string, args: Record<string, unknown>): Promise<string> {
        const created = await this.require().request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResult);
        this.model.applyWire(created.task);
        return created.task.taskId;
    }

    /** Calls a tool and waits for its result (no task). */
    async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
        return this.require().request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 24 * 3600_000 });
    }

    private require(): Client {
        if (!this.client) {
            throw new Error('The MCP Tasks server is not connected yet');
        }
        return this.client;
    }

    private async connect(): Promise<void> {
        const endpoint = this.endpoint;
        if (!endpoint || this.isDisposed) {
            return;
        }
        const generation = ++this.generation;
        const capabilities = this.input ? { elicitation: { form: {}, url: {} }, sampling: {} } : {};
        const client = new Client({ name: OWN_CLIENT_NAME, version: '1.0.0' }, { capabilities });
        client.setNotificationHandler(StatusNotification, notification => {
            this.model.applyWire(notification.params);
        });
        client.setNotificationHandler(OwnerProgressNotification, ({ params }) => {
            this.model.applyProgress(params.taskId, { progress: params.progress, total: params.total, message: params.message });
        });
        if (this.input) {
            const input = this.input;
            client.setRequestHandler(ElicitRequestSchema, (request, extra) => input.elicit(request.params, { signal: extra.signal, taskId: relatedTaskId(request.params) }));
            client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => input.createMessage(request.params, { signal: extra.signal, taskId: relatedTaskId(request.params) }));
        }
        const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } } });
        transport.onclose = () => this.onLost(generation, 'closed');
        try {
            await client.connect(transport);
        } catch (err) {
            this.log.warn(`cannot connect to the server: ${(err as Error).message}`);
            this.scheduleRetry(generation);
            return;
        }
        if (generation !== this.generation) {
            await client.close();
            return;
        }
        client.onerror = err => this.log.debug(`client: ${err.message}`);
        this.client = client;
        this.attempt = 0;
        this.log.info('owner connection established');
        this.stateChanged.fire(true);
        await this.reconcile();
    }

    private onLost(generation: number, why: string): void {
        if (generation !== this.generation || !this.client) {
            return;
        }
        this.log.info(`owner connection ${why}`);
        this.client = undefined;
        this.stateChanged.fire(false);
        this.scheduleRetry(generation);
    }

    private scheduleRetry(generation: number): void {
        if (generation !== this.generation || this.isDisposed || !this.endpoint) {
            return;
        }
        clearTimeout(this.retryTimer);
        const delay = Math.min(10_000, 500 * 2 ** this.attempt++);
        this.retryTimer = setTimeout(() => void this.connect(), delay);
    }

    private async disconnect(): Promise<void> {
        clearTimeout(this.retryTimer);
        this.generation++;
        const client = this.client;
        this.client = undefined;
        if (client) {
            this.stateChanged.fire(false);
            await client.close().catch(() => undefined);
        }
    }
}

function relatedTaskId(params: { _meta?: Record<string, unknown> } | undefined): string | undefined {
    const related = params?._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
    return typeof related?.taskId === 'string' ? related.taskId : undefined;
}
