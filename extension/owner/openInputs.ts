// A 2026-07-28 client's task asks through its inputRequests instead of a request to a client, so
// the owner is never sent elicitation/create for it. The owner's tasks/get lists those requests
// (INPUT_REQUESTS_META_KEY); this answers them through the same input handlers as a 2025-11-25
// task's, and sends the answer with tasks/update. vscode-free, so it is unit-tested as is.
import { INPUT_REQUESTS_META_KEY, type OpenInputRequest } from '@mcp-tasks/server/contract';
import type { ScopedLogger } from '../logger';
import type { InputHandlers } from './ownerConnection';
import { asElicitParams, asSamplingParams } from '../client/wireGuards';

export interface OpenInputsChannel {
    /** The owner's tasks/get of one task. */
    getTask(taskId: string): Promise<Record<string, unknown>>;
    /** The owner's tasks/update: answers keyed as the task's inputRequests. */
    update(taskId: string, inputResponses: Record<string, unknown>): Promise<void>;
}

interface Answering {
    key: string;
    controller: AbortController;
}

/** The open input requests of a task as the owner's tasks/get lists them; none when it lists none. */
export function openInputRequests(task: Record<string, unknown>): [string, OpenInputRequest][] {
    const meta = task._meta as Record<string, unknown> | undefined;
    const open = meta?.[INPUT_REQUESTS_META_KEY];
    if (typeof open !== 'object' || open === null || Array.isArray(open)) {
        return [];
    }
    return Object.entries(open as Record<string, unknown>).filter((entry): entry is [string, OpenInputRequest] => {
        const request = entry[1] as Partial<OpenInputRequest> | null;
        return typeof request?.method === 'string' && typeof request.params === 'object' && request.params !== null;
    });
}

/**
 * One question at a time per task: the first open request is put to the user; when the task
 * leaves input_required (its client answered, or it ended) the question is withdrawn.
 */
export class OpenInputs {
    private readonly answering = new Map<string, Answering>();

    constructor(
        private readonly channel: OpenInputsChannel,
        private readonly input: InputHandlers,
        private readonly log: ScopedLogger,
    ) {}

    /** A task's status as the owner heard it (a notification, or a reconcile). */
    onStatus(taskId: string, status: string): void {
        if (status === 'input_required') {
            void this.refresh(taskId);
        } else {
            this.withdraw(taskId);
        }
    }

    /** Withdraws every open question (the connection is gone). */
    clear(): void {
        for (const taskId of [...this.answering.keys()]) {
            this.withdraw(taskId);
        }
    }

    private withdraw(taskId: string): void {
        const current = this.answering.get(taskId);
        if (current) {
            this.answering.delete(taskId);
            current.controller.abort(new Error('The task no longer waits for this answer'));
        }
    }

    private async refresh(taskId: string): Promise<void> {
        let open: [string, OpenInputRequest][];
        try {
            open = openInputRequests(await this.channel.getTask(taskId));
        } catch (err) {
            this.log.debug(`input requests of ${taskId} not read: ${(err as Error).message}`);
            return;
        }
        const current = this.answering.get(taskId);
        if (current && open.some(([key]) => key === current.key)) {
            return;
        }
        this.withdraw(taskId);
        const next = open[0];
        if (next) {
            await this.answer(taskId, next[0], next[1]);
        }
    }

    private async answer(taskId: string, key: string, request: OpenInputRequest): Promise<void> {
        const controller = new AbortController();
        this.answering.set(taskId, { key, controller });
        const { signal } = controller;
        let answered = false;
        try {
            let answer: object;
            if (request.method === 'elicitation/create') {
                answer = await this.input.elicit(asElicitParams(request.params), { signal, taskId });
            } else if (request.method === 'sampling/createMessage') {
                answer = await this.input.createMessage(asSamplingParams(request.params), { signal, taskId });
            } else {
                this.log.warn(`task ${taskId} asks ${request.method}, which MCP Tasks cannot answer`);
                return;
            }
            if (!signal.aborted) {
                await this.channel.update(taskId, { [key]: answer });
                answered = true;
            }
        } catch (err) {
            if (!signal.aborted) {
                this.log.warn(`answering ${request.method} of ${taskId} failed: ${(err as Error).message}`);
            }
        } finally {
            if (this.answering.get(taskId)?.key === key) {
                this.answering.delete(taskId);
            }
        }
        // The task may have asked more meanwhile (a failed answer is not retried: it would fail again).
        if (answered) {
            void this.refresh(taskId);
        }
    }
}
