import { z } from 'zod';
import { invalidParams } from '../rpc/errors.js';
import { textResult, type CallToolResult, type ToolDefinition } from './types.js';

/** A call's arguments checked against its tool's input schema: the parsed values, or what is wrong in words. */
export type CheckedArguments = { args: Record<string, unknown> } | { problem: string; issues: { path: PropertyKey[]; message: string }[] };

export function checkArguments(tool: ToolDefinition, args: unknown): CheckedArguments {
    const parsed = tool.inputSchema.safeParse(args ?? {});
    if (parsed.success) {
        return { args: parsed.data as Record<string, unknown> };
    }
    const details = parsed.error.issues.map(issue => `${issue.path.length > 0 ? issue.path.join('.') : '(arguments)'}: ${issue.message}`);
    return {
        problem: `Invalid arguments for tool ${tool.name}: ${details.join('; ')}. ${tool.name} takes ${shapeOf(tool)}`,
        issues: parsed.error.issues.map(issue => ({ path: issue.path, message: issue.message })),
    };
}

/** For code that calls a tool itself (a sub-task's spawn): a -32602 naming each failing field. */
export function parseArguments(tool: ToolDefinition, args: unknown): Record<string, unknown> {
    const checked = checkArguments(tool, args);
    if ('problem' in checked) {
        throw invalidParams(checked.problem, { issues: checked.issues });
    }
    return checked.args;
}

/**
 * What a model reads when its arguments were wrong (2025-11-25, SEP-1303: a tool execution error,
 * not a protocol error, so that it can correct the call). Text only: a structuredContent that does
 * not match the tool's output schema would make the SDK clients throw the result away.
 */
export function argumentsErrorResult(problem: string): CallToolResult {
    return textResult(`${problem}. Call it again with arguments of that shape.`, true);
}

/** The tool's arguments in one line, from its listed input schema: `{seconds: number (required), label: string}`. */
function shapeOf(tool: ToolDefinition): string {
    const schema = (tool.jsonInputSchema ?? z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' })) as { properties?: Record<string, unknown>; required?: string[] };
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([name, property]) => `${name}: ${typeName(property)}${required.has(name) ? ' (required)' : ''}`);
    return fields.length > 0 ? `{${fields.join(', ')}}` : 'no arguments ({})';
}

function typeName(property: unknown): string {
    const p = (property ?? {}) as { type?: unknown; enum?: unknown[]; const?: unknown; anyOf?: unknown[]; items?: unknown };
    if (Array.isArray(p.enum)) {
        return `one of ${p.enum.map(value => JSON.stringify(value)).join(', ')}`;
    }
    if (p.const !== undefined) {
        return JSON.stringify(p.const);
    }
    if (Array.isArray(p.anyOf)) {
        return p.anyOf.map(typeName).join(' or ');
    }
    if (p.type === 'array') {
        return `array of ${typeName(p.items)}`;
    }
    if (typeof p.type === 'string') {
        return p.type;
    }
    return Array.isArray(p.type) ? p.type.join(' or ') : 'any value';
}

/**
 * A stand-in for `tool` that runs nothing and answers `result`: a call that asked for a task gets
 * one, ended at once with the refusal (a 2025-11-25 requestor expects a CreateTaskResult).
 */
export function refusingTool(tool: ToolDefinition, result: CallToolResult): ToolDefinition {
    const { name, title, description, inputSchema, taskSupport } = tool;
    return { name, title, description, inputSchema, taskSupport, run: async () => result };
}
