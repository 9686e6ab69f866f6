import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** MCP's guidance for tool names (2025-11-25): 1 to 128 ASCII letters, digits, `_`, `-` and `.`; hosts' model APIs refuse the rest. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The tools of a wrapped server's `tools/list` that a host can use, each checked alone: one with a
 * bad name or no input schema is left out with a warning naming it, never the whole server (a
 * schema check of the whole list, as the SDK client makes, fails every tool for one).
 */
export function usableTools(listed: readonly unknown[], warn: (text: string) => void): Tool[] {
    const tools: Tool[] = [];
    for (const raw of listed) {
        const problem = toolProblem(raw);
        if (problem) {
            warn(`tool ${nameShown(raw)} left out: ${problem}`);
            continue;
        }
        tools.push(raw as Tool);
    }
    return tools;
}

function toolProblem(raw: unknown): string | undefined {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        return 'it is not an object';
    }
    const tool = raw as Record<string, unknown>;
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        return 'its name must be 1 to 128 letters, digits, "_", "-" or "." (no spaces or line breaks)';
    }
    if (!isObjectSchema(tool.inputSchema)) {
        return 'it has no inputSchema of type "object", which MCP requires';
    }
    if (tool.outputSchema !== undefined && !isObjectSchema(tool.outputSchema)) {
        return 'its outputSchema is not of type "object"';
    }
    if (tool.description !== undefined && typeof tool.description !== 'string') {
        return 'its description is not a string';
    }
    return undefined;
}

function isObjectSchema(schema: unknown): boolean {
    return typeof schema === 'object' && schema !== null && !Array.isArray(schema) && (schema as { type?: unknown }).type === 'object';
}

/** The name as a log can show it: quoted, cut at 60 characters (the log escapes control characters). */
function nameShown(raw: unknown): string {
    const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    const text = JSON.stringify(typeof name === 'string' ? name : String(name));
    return text.length > 62 ? `${text.slice(0, 60)}…"` : text;
}
