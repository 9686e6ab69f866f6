import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../util/log.js';
import type { TaskSupport, ToolDefinition } from '../tools/types.js';
import type { Downstream } from './downstream.js';
import type { BoundedResults } from './boundedResults.js';
import { TOOL_NAME } from './toolChecks.js';

/** Any object: the downstream validates its own arguments (its schema is what tools/list shows). */
const ANY_ARGUMENTS = z.looseObject({});

/**
 * Every downstream tool as one of ours. Names: with one downstream, each tool keeps its name. With
 * several, a name two or more of them offer becomes `<server>_<tool>` in each; unique names stay.
 * A name that is ours already (a built-in or task tool, see `taken`) also gets the prefix; one
 * still taken after that is left out, with a warning. Deterministic: servers in configuration
 * order, tools in the order each lists them.
 */
export function wrappedTools(downstreams: readonly Downstream[], taken: (name: string) => boolean, log: Logger, results: BoundedResults): ToolDefinition[] {
    const offeredBy = new Map<string, number>();
    for (const downstream of downstreams) {
        for (const name of new Set(downstream.tools.map(tool => tool.name))) {
            offeredBy.set(name, (offeredBy.get(name) ?? 0) + 1);
        }
    }
    const used = new Set<string>();
    const tools: ToolDefinition[] = [];
    for (const downstream of downstreams) {
        for (const tool of downstream.tools) {
            let name = tool.name;
            if (offeredBy.get(name)! > 1 || taken(name)) {
                name = `${downstream.name}_${tool.name}`;
            }
            if (taken(name) || used.has(name)) {
                log.warn(`[${downstream.name}] tool ${tool.name} left out: the name ${name} is taken`);
                continue;
            }
            if (!TOOL_NAME.test(name)) {
                // The server's own name made the prefix too long, or holds what a tool name cannot.
                log.warn(`[${downstream.name}] tool ${tool.name} left out: ${JSON.stringify(name.slice(0, 60))} is not a usable tool name; give the server a shorter name of letters, digits, "_" or "-"`);
                continue;
            }
            used.add(name);
            tools.push(wrapTool(downstream, tool, name, results));
        }
    }
    return tools;
}

/**
 * One downstream tool as ours. Task support: a downstream "required" stays required and runs as a
 * downstream task that ours mirrors; a tool in the server's `sync` list stays plain; every other
 * tool is "optional", so a host that sends `task` (VS Code) gets a task it can follow and cancel.
 */
export function wrapTool(downstream: Downstream, tool: Tool, name: string, results: BoundedResults): ToolDefinition {
    const downstreamSupport = tool.execution?.taskSupport;
    const taskSupport: TaskSupport = downstreamSupport === 'required' ? 'required' : downstream.spec.sync.includes(tool.name) ? 'forbidden' : 'optional';
    const asTask = downstreamSupport === 'required';
    const definition: ToolDefinition = {
        name,
        title: tool.title ?? tool.annotations?.title ?? tool.name,
        description: tool.description ?? '',
        inputSchema: ANY_ARGUMENTS,
        jsonInputSchema: tool.inputSchema as Record<string, unknown>,
        taskSupport,
        // A result too long for a model is handed on bounded, the whole of it readable by read_output (boundedResults.ts).
        run: (args, ctx) => downstream.callTool(tool.name, args, ctx, asTask).then(result => results.bound(name, result, ctx, tool.outputSchema !== undefined)),
        output: taskId => results.output(taskId),
        outputIsResult: true,
    };
    if (tool.outputSchema) {
        definition.jsonOutputSchema = tool.outputSchema as Record<string, unknown>;
    }
    if (tool.annotations) {
        // Our listing puts the title into the annotations itself.
        const hints = { ...tool.annotations };
        delete hints.title;
        definition.annotations = hints;
    }
    return definition;
}
