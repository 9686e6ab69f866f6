import type { Logger } from '../log.js';
import type { ChildTask, SpawnOptions, ToolContext } from '../tools/types.js';
import type { LocalWork } from './localWork.js';
import type { InputCapability } from './hub.js';
import type { TaskRecord } from './types.js';

type ElicitParams = Parameters<ToolContext['elicit']>[0];
type SamplingParams = Parameters<ToolContext['createMessage']>[0];

/** What a running task's context needs from the runtime. */
export interface TaskContextHost {
    readonly log: Logger;
    publishProgress(record: TaskRecord, progress: number, total?: number, message?: string): void;
    requestInput(record: TaskRecord, work: LocalWork, capability: InputCapability, method: string, params: object, waitingMessage: string): Promise<Record<string, unknown>>;
    spawn(record: TaskRecord, work: LocalWork, toolName: string, args?: Record<string, unknown>, options?: SpawnOptions): Promise<ChildTask>;
}

/**
 * The context a tool gets when it runs as a task. Methods live on the prototype and the signal
 * is made on first read, so a task that never waits costs one small object here.
 */
export class TaskContext implements ToolContext {
    constructor(
        private readonly record: TaskRecord,
        private readonly work: LocalWork,
        private readonly host: TaskContextHost,
    ) {}

    get signal(): AbortSignal {
        return this.work.signal;
    }

    get taskId(): string {
        return this.record.taskId;
    }

    get log(): Logger {
        return this.host.log;
    }

    sleep(ms: number): Promise<void> {
        return this.work.sleep(ms);
    }

    progress(progress: number, total?: number, message?: string): void {
        if (!this.work.stopped) {
            this.host.publishProgress(this.record, progress, total, message);
        }
    }

    async elicit(params: ElicitParams) {
        const raw = await this.host.requestInput(this.record, this.work, 'elicitation', 'elicitation/create', params, `Waiting for the user: ${params.message}`);
        return parseReply((await sdkTypes()).ElicitResultSchema, raw, 'elicitation/create');
    }

    async createMessage(params: SamplingParams) {
        const raw = await this.host.requestInput(this.record, this.work, 'sampling', 'sampling/createMessage', params, "Waiting for the client's language model");
        return parseReply((await sdkTypes()).CreateMessageResultSchema, raw, 'sampling/createMessage');
    }

    spawn(toolName: string, args?: Record<string, unknown>, options?: SpawnOptions): Promise<ChildTask> {
        return this.host.spawn(this.record, this.work, toolName, args, options);
    }
}

/** The SDK's schema module, loaded on first use: building its schemas costs some 30 ms at start-up. */
function sdkTypes(): Promise<typeof import('@modelcontextprotocol/sdk/types.js')> {
    return import('@modelcontextprotocol/sdk/types.js');
}

function parseReply<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, raw: unknown, method: string): T {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
        throw new Error(`The client's answer to ${method} is malformed: ${parsed.error.message}`);
    }
    return parsed.data;
}
