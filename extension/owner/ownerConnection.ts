import type { CallToolResult, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { Methods, OWNER_JOBS_CAPABILITY, RELATED_TASK_META_KEY } from '@mcp-tasks/server/contract';
import type { OwnerJobRunner } from '../commandTools/vscodeTaskJobs';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import type { TaskModel } from '../tasks/taskModel';
import { ResultCache } from '../tasks/resultCache';
import { setServerToolTitles, type TaskView } from '../tasks/taskView';
import { OpenInputs } from './openInputs';
import { processAlive } from './ownerVerify';
import { RpcClient, type RequestHandler } from '../client/rpcClient';
import type { StreamOptions } from '../client/streamableHttp';
import { asCreatedTask, asElicitParams, asOwnerJobStart, jobRef, asSamplingParams, asTask, asTaskPage, asToolResult, asTools, isLooseTask, ownerProgress } from '../client/wireGuards';

/** The name our client gives in initialize: tasks it starts show as "this editor". */
export const OWN_CLIENT_NAME = 'MCP Tasks for VS Code';
const RECONCILE_MS = 30_000;
/** tasks/result and a plain tools/call wait for the tool, however long it runs. */
const TOOL_TIMEOUT_MS = 24 * 3600_000;

export interface OwnerEndpoint {
    url: string;
    token: string;
    /** The server process; a restart on the same URL is still a new server. */
    pid?: number;
}

/** Answers the server's input requests for tasks of clients that cannot (and for our own). */
export interface InputHandlers {
    elicit(params: ElicitRequest['params'], context: { signal: AbortSignal; taskId?: string }): Promise<ElicitResult>;
    createMessage(params: CreateMessageRequest['params'], context: { signal: AbortSignal; taskId?: string }): Promise<CreateMessageResult>;
}

/**
 * The extension's own MCP client, authenticated as the owner: it sees every client's tasks
 * (Copilot's included), keeps the TaskModel current from pushed notifications, and can cancel.
 */
export class OwnerConnection extends Disposable {
    private client?: RpcClient;
    private endpoint?: OwnerEndpoint;
    private generation = 0;
    private retryTimer?: NodeJS.Timeout;
    private attempt = 0;
    private readonly reconcileTimer: NodeJS.Timeout;
    private readonly stateChanged = this.register(new vscode.EventEmitter<boolean>());
    /** Fires true when connected, false when the connection is lost. */
    readonly onDidChangeState = this.stateChanged.event;
    /** The input requests of 2026-07-28 clients' tasks, answered as the server's requests for the others are. */
    private readonly openInputs?: OpenInputs;

    constructor(
        private readonly model: TaskModel,
        private readonly log: ScopedLogger,
        private readonly input?: InputHandlers,
        /** How the GET stream reopens (tests shorten the waits). */
        private readonly streamOptions?: StreamOptions,
        /** Runs the server's owner jobs (VS Code tasks exposed as tools). */
        private readonly jobs?: OwnerJobRunner,
        /** Results fetched from this and earlier servers (and windows), readable after their server is gone. */
        private readonly results: ResultCache<CallToolResult, TaskView> = new ResultCache(),
    ) {
        super();
        if (input) {
            this.openInputs = new OpenInputs(
                {
                    getTask: async taskId => asTask(await this.require().request(Methods.tasksGet, { taskId }), 'tasks/get result'),
                    update: async (taskId, inputResponses) => void (await this.require().request(Methods.tasksUpdate, { taskId, inputResponses })),
                },
                input,
                log,
            );
        }
        this.reconcileTimer = setInterval(() => void this.reconcile(), RECONCILE_MS);
        this.register({ dispose: () => clearInterval(this.reconcileTimer) });
        this.register({ dispose: () => this.disconnect() });
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
        this.disconnect();
        if (hadServer) {
            // An in-memory store died with its process: whatever still ran there is lost. At once:
            // the crash notice that follows names what was lost.
            this.model.markLost();
        }
        if (endpoint) {
            void this.connect();
        }
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
                const page = asTaskPage(await client.request(Methods.tasksList, cursor ? { cursor } : {}));
                all.push(...page.tasks);
                cursor = page.nextCursor;
            } while (cursor);
            this.model.reconcile(all);
            for (const task of all) {
                if (isLooseTask(task) && task.status === 'input_required') {
                    this.openInputs?.onStatus(task.taskId, task.status);
                }
            }
        } catch (err) {
            this.log.warn(`reconcile failed: ${(err as Error).message}`);
        }
    }

    async listTools(): Promise<Tool[]> {
        const tools = asTools(await this.require().request(Methods.toolsList));
        // Rows name a task by its tool's declared title ("Long job"), not its name for a model (`long_job`).
        setServerToolTitles(tools);
        return tools;
    }

    /** The tools' titles for the rows, read once connected; a failure leaves rows on tool names. */
    private async readToolTitles(): Promise<void> {
        try {
            await this.listTools();
        } catch (err) {
            this.log.warn(`cannot read the tool titles: ${(err as Error).message}`);
        }
    }

    async cancel(taskId: string): Promise<void> {
        const task = asTask(await this.require().request(Methods.tasksCancel, { taskId }), 'tasks/cancel result');
        this.model.applyWire(task);
    }

    /** A finished task's result: the copy fetched before, if any (it outlives its server), else the server's. */
    async result(taskId: string): Promise<CallToolResult> {
        const kept = this.results.get(taskId);
        if (kept) {
            return kept;
        }
        const result = asToolResult(await this.require().request(Methods.tasksResult, { taskId }, TOOL_TIMEOUT_MS), 'tasks/result result');
        const view = this.model.get(taskId);
        this.results.set(taskId, result, view && { view: keptView(view), expiresAt: ttlEnd(view) });
        return result;
    }

    /** Whether the extension has a finished task's result without asking the server. */
    hasResult(taskId: string): boolean {
        return this.results.has(taskId);
    }

    /** Forgets the kept results of these tasks (their rows were cleared). */
    forgetResults(taskIds: Iterable<string>): void {
        this.results.forget(taskIds);
    }

    /** The tasks that were still unfinished when the last server went away. */
    get lostTasks(): readonly TaskView[] {
        return this.model.lostAtLastStop;
    }

    /** Starts a tool as a task and returns its id (the model learns of it at once). */
    async startTask(name: string, args: Record<string, unknown>): Promise<string> {
        const task = asCreatedTask(await this.require().request(Methods.toolsCall, { name, arguments: args, task: {} }));
        this.model.applyCreated(task);
        return task.taskId;
    }

    /** Calls a tool and waits for its result (no task); `signal` stops waiting and tells the server. */
    async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
        return asToolResult(await this.require().request(Methods.toolsCall, { name, arguments: args }, TOOL_TIMEOUT_MS, signal), 'tools/call result');
    }

    private require(): RpcClient {
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
        const capabilities = {
            ...(this.input ? { elicitation: { form: {}, url: {} }, sampling: {} } : {}),
            ...(this.jobs ? { experimental: { [OWNER_JOBS_CAPABILITY]: { kinds: this.jobs.kinds } } } : {}),
        };
        const client = new RpcClient({
            url: endpoint.url,
            token: endpoint.token,
            clientInfo: { name: OWN_CLIENT_NAME, version: '1.0.0' },
            capabilities,
            handlers: { ...(this.input && inputHandlers(this.input)), ...(this.jobs && jobHandlers(this.jobs)) },
            onNotification: (method, params) => this.onNotification(method, params),
            onLost: reason => this.onLost(generation, reason),
            onError: message => this.log.debug(`client: ${message}`),
            stream: this.streamOptions,
            peerAlive: endpoint.pid === undefined ? undefined : () => processAlive(endpoint.pid!),
        });
        try {
            await client.connect();
        } catch (err) {
            this.log.warn(`cannot connect to the server: ${(err as Error).message}`);
            this.scheduleRetry(generation);
            return;
        }
        if (generation !== this.generation) {
            client.close();
            return;
        }
        this.client = client;
        this.attempt = 0;
        this.log.info('owner connection established');
        this.stateChanged.fire(true);
        await this.readToolTitles();
        await this.reconcile();
    }

    private onNotification(method: string, params: Record<string, unknown>): void {
        if (method === Methods.taskStatus && isLooseTask(params)) {
            this.model.applyWire(params);
            this.openInputs?.onStatus(params.taskId, params.status);
        } else if (method === 'notifications/tools/list_changed') {
            // A reloaded commands file can rename its tools.
            void this.readToolTitles();
        } else if (method === Methods.ownerProgress) {
            const progress = ownerProgress(params);
            if (progress) {
                this.model.applyProgress(progress.taskId, { progress: progress.progress, total: progress.total, message: progress.message });
            }
        }
    }

    private onLost(generation: number, why: string): void {
        if (generation !== this.generation || !this.client) {
            return;
        }
        this.log.info(`owner connection lost: ${why}`);
        this.client = undefined;
        this.openInputs?.clear();
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

    private disconnect(): void {
        clearTimeout(this.retryTimer);
        this.generation++;
        const client = this.client;
        this.client = undefined;
        this.openInputs?.clear();
        if (client) {
            this.stateChanged.fire(false);
            client.close();
        }
    }
}

/** The server's input requests, checked and handed to `input` with the task they are for. */
function inputHandlers(input: InputHandlers): Record<string, RequestHandler> {
    return {
        [Methods.elicitationCreate]: (raw, signal) => {
            const params = asElicitParams(raw);
            return input.elicit(params, { signal, taskId: relatedTaskId(params) });
        },
        [Methods.samplingCreateMessage]: (raw, signal) => {
            const params = asSamplingParams(raw);
            return input.createMessage(params, { signal, taskId: relatedTaskId(params) });
        },
    };
}

/** The server's ownerJob requests, checked and handed to the runner. */
function jobHandlers(jobs: OwnerJobRunner): Record<string, RequestHandler> {
    return {
        [Methods.ownerJobStart]: raw => jobs.start(asOwnerJobStart(raw)),
        [Methods.ownerJobStatus]: (raw, signal) => jobs.status(jobRef(raw), raw?.wait === true, signal),
        [Methods.ownerJobCancel]: async raw => {
            await jobs.cancel(jobRef(raw));
            return {};
        },
    };
}

/** A finished task as its row showed it, without what only a live task has. */
function keptView(view: TaskView): TaskView {
    const kept = { ...view };
    delete kept.progress;
    delete kept.lost;
    delete kept.stoppedWaitingAt;
    return kept;
}

/** When the server drops a task and its result: its TTL after it was created; undefined for none. */
function ttlEnd(view: TaskView): number | undefined {
    const created = Date.parse(view.createdAt);
    return view.ttl === null || Number.isNaN(created) ? undefined : created + view.ttl;
}

function relatedTaskId(params: { _meta?: Record<string, unknown> } | undefined): string | undefined {
    const related = params?._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
    return typeof related?.taskId === 'string' ? related.taskId : undefined;
}
