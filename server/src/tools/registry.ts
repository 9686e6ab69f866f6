import { z } from 'zod';
import { checkArguments, type CheckedArguments } from './arguments.js';
import type { KeyArguments } from '../tasks/wire.js';
import type { ToolDefinition } from './types.js';

/**
 * What a plain call deferred into a task answers as its `structuredContent` (mcp/defer.ts): the
 * task, and what to call next. A tool that may be deferred lists its output schema as "its own, or
 * this", so the answer is an ordinary success that every client's schema check accepts (both MCP
 * SDKs check a success against the listed schema), not an error result, which Claude Code marks
 * is_error and Gemini CLI wraps in an error.
 */
export const DEFERRED_ANSWER_SCHEMA = {
    type: 'object',
    properties: {
        taskId: { type: 'string', description: 'The task the call goes on as.' },
        status: { type: 'string', const: 'working' },
        next: { type: 'string', description: 'What to call to follow it.' },
    },
    required: ['taskId', 'status', 'next'],
} as const;

/** Whether a plain call of `tool` can go on as a task (--defer-after): task-capable code this server runs. */
export function mayDefer(tool: ToolDefinition): boolean {
    return tool.taskSupport !== 'forbidden' && tool.run !== undefined;
}

/** The tools a server offers, with their `tools/list` entries computed once. */
export class ToolRegistry implements KeyArguments {
    private readonly tools = new Map<string, ToolDefinition>();
    private listing?: Record<string, unknown>[];

    constructor(
        tools: readonly ToolDefinition[],
        /** Whether plain calls may be deferred into tasks (--defer-after with the task tools): their output schemas then admit the deferral's answer. */
        private readonly defers = false,
        /** With the task tools: the sentence a tool that runs only as a task ends its description with (mcp/taskTools.ts). */
        private readonly requiredNote?: (toolName: string) => string,
    ) {
        this.replace(tools);
    }

    /** Swaps the whole set (a reloaded commands file); a bad set throws and leaves the current one. */
    replace(tools: readonly ToolDefinition[]): void {
        const next = new Map<string, ToolDefinition>();
        for (const tool of tools) {
            if (next.has(tool.name)) {
                throw new Error(`Duplicate tool name: ${tool.name}`);
            }
            if (!tool.run && !tool.external) {
                throw new Error(`Tool ${tool.name} needs run() or external`);
            }
            next.set(tool.name, tool);
        }
        this.tools.clear();
        for (const [name, tool] of next) {
            this.tools.set(name, tool);
        }
        this.listing = undefined;
    }

    get(name: string): ToolDefinition | undefined {
        return this.tools.get(name);
    }

    keyArgumentOf(toolName: string): string | undefined {
        return this.tools.get(toolName)?.keyArgument;
    }

    all(): ToolDefinition[] {
        return [...this.tools.values()];
    }

    /** The `tools/list` entries: every tool but the hidden ones. */
    list(): Record<string, unknown>[] {
        this.listing ??= this.all()
            .filter(tool => !tool.hidden)
            .map(tool => describeTool(tool, this.defers, this.requiredNote));
        return this.listing;
    }

    /** Checks a call's arguments against the tool's input schema. */
    checkArguments(tool: ToolDefinition, args: unknown): CheckedArguments {
        return checkArguments(tool, args);
    }
}

/** A tool's `tools/list` entry; `defers`: a plain call of it may answer DEFERRED_ANSWER_SCHEMA instead of its own output. */
export function describeTool(tool: ToolDefinition, defers = false, requiredNote?: (toolName: string) => string): Record<string, unknown> {
    const entry: Record<string, unknown> = {
        name: tool.name,
        title: tool.title,
        // A host whose client refuses a plain call of a required-task tool before it reaches us
        // (opencode) shows the model only its own refusal: the description is where it learns what to call.
        description: tool.taskSupport === 'required' && requiredNote ? `${tool.description} ${requiredNote(tool.name)}` : tool.description,
        inputSchema: tool.jsonInputSchema ?? jsonSchema(tool.inputSchema, 'input'),
    };
    if (tool.outputSchema) {
        entry.outputSchema = jsonSchema(tool.outputSchema, 'output');
    } else if (tool.jsonOutputSchema) {
        entry.outputSchema = tool.jsonOutputSchema;
    }
    if (entry.outputSchema && defers && mayDefer(tool)) {
        entry.outputSchema = { type: 'object', anyOf: [entry.outputSchema, DEFERRED_ANSWER_SCHEMA] };
    }
    if (tool.annotations) {
        entry.annotations = { title: tool.title, ...tool.annotations };
    }
    // Absent means forbidden; say so only for task-capable tools, as the spec's examples do.
    if (tool.taskSupport !== 'forbidden') {
        entry.execution = { taskSupport: tool.taskSupport };
    }
    return entry;
}

function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
    delete json.$schema;
    return json;
}
