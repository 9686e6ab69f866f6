import { z } from 'zod';
import { TASK_TOOL_META_KEY } from '../contract.js';
import { DEFAULT_DEFER_AFTER_MS } from '../defaults.js';
import { errorMessage } from '../util/log.js';
import { RpcError } from '../rpc/errors.js';
import type { RequestAbort } from '../rpc/requestAbort.js';
import type { TaskOutcome, TaskRecord } from '../tasks/types.js';
import { isTerminal } from '../tasks/types.js';
import { describeTool } from '../tools/registry.js';
import { argumentsErrorResult, checkArguments } from '../tools/arguments.js';
import { textResult, type CallToolResult, type ToolDefinition } from '../tools/types.js';
import type { TaskToolCaller } from './caller.js';
import { outputNews, readOutputTool, readTaskOutput } from './readOutputTool.js';

/** get_task's wait when --defer-after is shorter: well under the 60 s most hosts (Codex, the SDK client) give a tool call. */
const MIN_WAIT_SECONDS = 20;

/**
 * How long get_task may wait for a task to end (a longer wait_seconds is cut to it): the budget a
 * plain call has before --defer-after answers it (50 s by default, under the 60 s at which most
 * hosts give up on a call), so a model can follow a long suite in few calls. Off, the default's;
 * never less than MIN_WAIT_SECONDS.
 */
export function waitLimitSeconds(deferAfterMs?: number): number {
    // A short --defer-after (a host cut at 30 s, or tests) still waits the 20 s every host allows.
    return Math.max(MIN_WAIT_SECONDS, Math.floor((deferAfterMs || DEFAULT_DEFER_AFTER_MS) / 1000));
}

const START_PREFIX = 'start_';
const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;

export type { TaskToolCaller } from './caller.js';

type TaskToolHandler = (session: TaskToolCaller, args: Record<string, unknown>, abort: RequestAbort) => Promise<CallToolResult>;

export interface TaskTool {
    definition: ToolDefinition;
    handle: TaskToolHandler;
}

/** The name of the tool that starts `toolName` in the background. */
export function startToolName(toolName: string): string {
    return START_PREFIX + toolName;
}

/**
 * Why a plain call of a tool that runs only as a task was refused, written for the model that made
 * it: first the tool it can call instead (when the task tools are served), then, in brackets, what
 * a client that speaks MCP Tasks does (`protocolWay`), which a model cannot do itself.
 */
export function onlyAsTaskText(toolName: string, taskTools: boolean, protocolWay: string): string {
    if (!taskTools) {
        return `Tool ${toolName} runs only as a task: ${protocolWay}`;
    }
    return (
        `Tool ${toolName} runs only as a task. Call ${startToolName(toolName)} with the same arguments instead: it starts the work in the background and returns a task id at once; ` +
        `then call get_task with that task_id for its progress and, once it ends, its result. (A client that speaks MCP Tasks would ${protocolWay}.)`
    );
}

/** The end of a required-task tool's description, with the task tools on: what to call in its place. */
export function requiredTaskNote(toolName: string): string {
    return `Runs only as a task: call ${startToolName(toolName)} with the same arguments, then get_task with the task_id it returns.`;
}

/**
 * Plain tools (never task-augmented) through which a model that cannot, or should not, block on a
 * task starts, follows and cancels tasks: for hosts that never send `task` (Claude Code, Cursor,
 * Codex), and for VS Code, whose chat turn blocks until a task-augmented call ends. They act on
 * the same tasks as `tasks/*`, through the runtime, as the calling client.
 *
 * One `start_<tool>` per task-capable tool rather than one generic start tool: VS Code asks for
 * confirmation (and remembers "always allow") per tool, from the tool's own annotations, so each
 * start tool carries the annotations of the tool it starts. A generic one would be approved once
 * for every tool behind it, or, marked read-only, never asked about at all.
 */
export class TaskTools {
    private readonly byName = new Map<string, TaskTool>();
    private listing?: Record<string, unknown>[];

    constructor(
        tools: readonly ToolDefinition[],
        /** get_task's longest wait (waitLimitSeconds). */
        readonly maxWaitSeconds = waitLimitSeconds(),
    ) {
        const startable = tools.filter(tool => !tool.hidden && tool.taskSupport !== 'forbidden');
        for (const tool of startable) {
            this.add(startTool(tool), startHandler(tool, maxWaitSeconds));
        }
        // The descriptions name a start tool only when there is one, and only one that is served.
        const example = startable[0] && startToolName(startable[0].name);
        this.add(getTaskTool(example, maxWaitSeconds), (session, args, abort) => getTask(session, args, abort, maxWaitSeconds));
        this.add(cancelTaskTool(example), cancelTask);
        this.add(listTasksTool, listTasks);
        if (tools.some(tool => tool.output)) {
            // Only where some tool keeps an output log (command tools): elsewhere it would be one more tool to read about.
            this.add(readOutputTool, readTaskOutput);
        }
        for (const tool of tools) {
            if (this.byName.has(tool.name)) {
                throw new Error(`Tool name ${tool.name} is taken by a task tool; rename the tool or run without task tools`);
            }
        }
    }

    get(name: string): TaskTool | undefined {
        return this.byName.get(name);
    }

    list(): Record<string, unknown>[] {
        this.listing ??= [...this.byName.values()].map(tool => ({ ...describeTool(tool.definition), _meta: { [TASK_TOOL_META_KEY]: true } }));
        return this.listing;
    }

    /** Runs a task tool; tool-level failures (an unknown task, a limit) are results the model can read. */
    async call(session: TaskToolCaller, tool: TaskTool, rawArgs: unknown, abort: RequestAbort): Promise<CallToolResult> {
        const checked = checkArguments(tool.definition, rawArgs);
        if ('problem' in checked) {
            return argumentsErrorResult(checked.problem);
        }
        try {
            return await tool.handle(session, checked.args, abort);
        } catch (err) {
            if (err instanceof RpcError || err instanceof Error) {
                return textResult(errorMessage(err), true);
            }
            throw err;
        }
    }

    private add(definition: ToolDefinition, handle: TaskToolHandler): void {
        this.byName.set(definition.name, { definition, handle });
    }
}

function startTool(tool: ToolDefinition): ToolDefinition {
    return {
        name: startToolName(tool.name),
        title: `Start in background: ${tool.title}`,
        description:
            // A demo's own text says first that it is one; the tool that starts it must not bury that.
            (tool.demo ? `Demonstration: ${tool.name} is a demo tool that does no real work; do not start it for real requests (see below). ` : '') +
            `Starts ${tool.name} as a background task and returns at once with its task id, so the conversation can go on while it runs (call it without a task: it is a plain tool). ` +
            `Prefer it to calling ${tool.name} directly when the work may take more than a few seconds${tool.taskSupport === 'required' ? ` (or when ${tool.name} says it must run as a task)` : ''}; ` +
            'then call get_task with the task id (optionally waiting a few seconds) for its progress and, once it has ended, its result; cancel_task stops it. ' +
            (tool.output && !tool.outputIsResult ? 'read_output reads its output, also while it runs. ' : '') +
            `Takes exactly the arguments of ${tool.name}. What ${tool.name} does: ${tool.description}`,
        inputSchema: tool.inputSchema,
        jsonInputSchema: tool.jsonInputSchema,
        // The same hints as the tool it starts: a host asks the same confirmation for either way in.
        annotations: tool.annotations,
        taskSupport: 'forbidden',
    };
}

function startHandler(tool: ToolDefinition, maxWaitSeconds: number): TaskToolHandler {
    return async (session, args) => {
        const record = await session.services.runtime.createTask(session.identity, tool, args, { background: true, askNoClient: session.envelope !== undefined });
        const text =
            `Started ${tool.name} in the background as task ${record.taskId} (status: ${record.status}). ` +
            `Call get_task with task_id "${record.taskId}" for its progress and result (wait_seconds up to ${maxWaitSeconds} waits for it to end); ` +
            `${tool.output && !tool.outputIsResult ? 'read_output reads its output meanwhile; ' : ''}cancel_task stops it.`;
        return { content: [{ type: 'text', text }], structuredContent: { ...taskSummary(record), next: text } };
    };
}

/** Where a task id comes from, naming `example` (a served start tool) when there is one. */
function taskIdSchema(example: string | undefined) {
    return z
        .string()
        .min(1)
        .max(200)
        .describe(example ? `The task id that a start_ tool (such as ${example}) or list_tasks returned.` : 'The task id that list_tasks returned.');
}

function getTaskTool(example: string | undefined, maxWaitSeconds: number): ToolDefinition {
    return {
        name: 'get_task',
        title: 'Get a background task',
        description:
            "Reports a task's status and latest progress message and, once it has ended (completed, failed or cancelled), the tool's result. " +
            `With wait_seconds it waits up to that long (at most ${maxWaitSeconds} seconds: a longer wait is cut to ${maxWaitSeconds}) for the task to end before answering; call it again if it is still running. ` +
            `Use it for tasks ${example ? `started with a start_ tool (such as ${example}) or ` : ''}listed by list_tasks. A plain tool: call it without a task.`,
        inputSchema: z.object({
            task_id: taskIdSchema(example),
            wait_seconds: z.number().min(0).default(0).describe(`How long to wait for the task to end, in seconds, e.g. 10; more than ${maxWaitSeconds} waits ${maxWaitSeconds}.`),
        }),
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        taskSupport: 'forbidden',
    };
}

function cancelTaskTool(example: string | undefined): ToolDefinition {
    return {
        name: 'cancel_task',
        title: 'Cancel a background task',
        description: 'Stops a running task (and any sub-tasks it started); its status becomes "cancelled". Fails for a task that has already ended. A plain tool: call it without a task.',
        inputSchema: z.object({ task_id: taskIdSchema(example) }),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        taskSupport: 'forbidden',
    };
}

const listTasksTool: ToolDefinition = {
    name: 'list_tasks',
    title: 'List my background tasks',
    description:
        'Lists the tasks this client started (oldest first), with their tool, status and latest message; optionally only those with one status. ' +
        'A caller without a token of a server started without --token is anonymous and cannot list: keep the task ids you are given. A plain tool: call it without a task.',
    inputSchema: z.object({
        status: z.enum(STATUSES).optional().describe('Only tasks with this status, e.g. "working".'),
        cursor: z.string().max(500).optional().describe('The next_cursor of a previous list_tasks answer, for the next page.'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'forbidden',
};

async function getTask(session: TaskToolCaller, args: Record<string, unknown>, abort: RequestAbort, maxWaitSeconds: number): Promise<CallToolResult> {
    const { runtime } = session.services;
    const taskId = args.task_id as string;
    const waitMs = Math.min(args.wait_seconds as number, maxWaitSeconds) * 1000;
    let record = await runtime.get(session.identity, taskId);
    if (!isTerminal(record.status) && waitMs > 0) {
        record = await waitForEnd(session, taskId, waitMs, abort);
    }
    const news = await outputNews(session, record);
    const summary = { ...taskSummary(record), ...news?.fields };
    if (!isTerminal(record.status)) {
        // A tool that reports only numbers (many wrapped servers do) still says how far it is.
        const progress = progressText(runtime.runOf(taskId)?.reported);
        if (progress !== undefined) {
            Object.assign(summary, { progress });
        }
        const text = `${sentence(`Task ${taskId} (${record.toolName}) is ${record.status}${record.statusMessage ? `: ${record.statusMessage}` : ''}${progress && !record.statusMessage ? ` (progress: ${progress})` : ''}`)}${news?.text ?? ''} Call get_task again later for its result.`;
        return { content: [{ type: 'text', text }], structuredContent: summary };
    }
    const { outcome } = await runtime.result(session.identity, taskId);
    const result = 'error' in outcome ? textResult(`Error ${outcome.error.code}: ${outcome.error.message}`, true) : outcome.result;
    const head = `${sentence(`Task ${taskId} (${record.toolName}) ${record.status}${record.statusMessage ? `: ${record.statusMessage}` : ''}`)}${news ? `\n${news.text.trim()}` : ''} Its result follows.`;
    // Hosts that hand the model only structured content (Claude Code) still get the whole result,
    // its text only once: a command's content is its structured summary, and is left out here.
    const carried = repeats(result) ? { structuredContent: result.structuredContent } : { content: result.content, structuredContent: result.structuredContent };
    return {
        content: [{ type: 'text', text: head }, ...result.content],
        structuredContent: { ...summary, result: { ...carried, isError: result.isError === true } },
    };
}

/** Whether every text block of a result is a value of its structured content (a command's digest is both). */
function repeats(result: CallToolResult): boolean {
    const values = result.structuredContent ? Object.values(result.structuredContent) : [];
    return values.length > 0 && result.content.every(part => part.type === 'text' && values.includes(part.text));
}

/** Waits on the task's events (not by polling) for at most `ms`, or until the call is withdrawn. */
async function waitForEnd(session: TaskToolCaller, taskId: string, ms: number, abort: RequestAbort): Promise<TaskRecord> {
    const { runtime } = session.services;
    const deadline = new AbortController();
    const timer = runtime.clock.setTimeout(controller => controller.abort(new Error('wait over')), ms, deadline, true);
    try {
        return (await runtime.result(session.identity, taskId, AbortSignal.any([deadline.signal, abort.signal]))).task;
    } catch (err) {
        if (!deadline.signal.aborted) {
            throw err;
        }
        return runtime.get(session.identity, taskId);
    } finally {
        runtime.clock.clearTimeout(timer);
    }
}

async function cancelTask(session: TaskToolCaller, args: Record<string, unknown>): Promise<CallToolResult> {
    const { runtime } = session.services;
    const record = await runtime.cancel(session.identity, args.task_id as string);
    // What the tool said as it stopped (a wrapped server's confirmation, or that there is none; a command's end): the model should not take "cancelled" for more than it is.
    const note = stopNoteOf((await runtime.result(session.identity, record.taskId)).outcome);
    const text = `Task ${record.taskId} (${record.toolName}) is cancelled.${note ? ` ${note}` : ''}`;
    return { content: [{ type: 'text', text }], structuredContent: note ? { ...taskSummary(record), stop_note: note } : taskSummary(record) };
}

/** The first line of what a cancelled task's tool added after why it stopped (outcomes.ts withStopNote), at most 400 characters. */
function stopNoteOf(outcome: TaskOutcome): string | undefined {
    const first = 'result' in outcome ? outcome.result.content[0] : undefined;
    const note = first?.type === 'text' ? first.text.split('\n\n')[1]?.split('\n')[0]?.trim() : undefined;
    return note ? (note.length > 400 ? `${note.slice(0, 399)}…` : note) : undefined;
}

async function listTasks(session: TaskToolCaller, args: Record<string, unknown>): Promise<CallToolResult> {
    const status = args.status as TaskRecord['status'] | undefined;
    // The caller's own tasks only, even for the owner: this is a model's view, not the sidebar's.
    const identity = { ...session.identity, isOwner: false };
    const page = await session.services.runtime.list(identity, args.cursor as string | undefined);
    const tasks = page.tasks.filter(task => !task.parentTaskId && (status === undefined || task.status === status)).map(taskSummary);
    const lines = tasks.map(task => `${task.task_id} ${task.tool} ${task.status}${task.status_message ? `: ${task.status_message}` : ''}`);
    const text = (lines.length > 0 ? lines.join('\n') : `No ${status ?? ''} tasks`.replace('  ', ' ') + '.') + (page.nextCursor ? `\nMore: call list_tasks with cursor "${page.nextCursor}".` : '');
    return { content: [{ type: 'text', text }], structuredContent: page.nextCursor ? { tasks, next_cursor: page.nextCursor } : { tasks } };
}

/** "40 of 100, 40 %", or "7" without a total; undefined before any figure. */
function progressText(reported: { progress: number; total?: number } | undefined): string | undefined {
    if (!reported || !Number.isFinite(reported.progress)) {
        return undefined;
    }
    const { progress, total } = reported;
    const figure = (n: number) => String(Math.round(n * 100) / 100);
    return total !== undefined && total > 0 ? `${figure(progress)} of ${figure(total)}, ${Math.round((progress / total) * 100)} %` : figure(progress);
}

/** `text` ended as a sentence: a status message ("Confirmed", "Cancelled by the client") often has no full stop. */
function sentence(text: string): string {
    const trimmed = text.trimEnd();
    return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function taskSummary(record: TaskRecord): { task_id: string; tool: string; status: string; status_message?: string; created_at: string; last_updated_at: string } {
    const summary: ReturnType<typeof taskSummary> = { task_id: record.taskId, tool: record.toolName, status: record.status, created_at: record.createdAt, last_updated_at: record.lastUpdatedAt };
    if (record.statusMessage !== undefined) {
        summary.status_message = record.statusMessage;
    }
    return summary;
}
