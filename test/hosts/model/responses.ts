/** OpenAI Responses (`POST /v1/responses`, SSE), as Codex speaks it. */
import { type Dialect, field, json, list, sse, startSse } from './dialect.js';
import { contentText } from './script.js';

/**
 * Tool names. Codex groups each MCP server's tools under a `{type: 'namespace', name, tools}` entry
 * (`mcp__tasks`); those are spelled `<namespace>.<tool>` here (a Responses tool name holds no dot).
 */
function toolNames(tools: Record<string, unknown>[]): string[] {
    return tools.flatMap(tool => {
        const name = typeof tool.name === 'string' ? tool.name : '';
        if (tool.type === 'namespace') {
            return list(tool.tools).map(inner => `${name}.${String(inner.name)}`);
        }
        return name ? [name] : [];
    });
}

/** A call's `name`, plus `namespace` for a namespaced tool, as the API's function_call item has them. */
function callName(spelled: string): { name: string; namespace?: string } {
    const dot = spelled.lastIndexOf('.');
    return dot < 0 ? { name: spelled } : { namespace: spelled.slice(0, dot), name: spelled.slice(dot + 1) };
}

export const responses: Dialect = {
    name: 'responses',
    matches: path => path.startsWith('/v1/responses'),
    read(body) {
        const results = list(field(body, 'input'))
            .filter(item => typeof item.type === 'string' && item.type.endsWith('call_output'))
            .map(item => ({ text: contentText(item.output), raw: item }));
        return { tools: toolNames(list(field(body, 'tools'))), results };
    },
    answer(_path, body, reply, res) {
        const item =
            reply.kind === 'call'
                ? { type: 'function_call', id: `fc_${reply.id}`, call_id: reply.id, ...callName(reply.name), arguments: JSON.stringify(reply.args), status: 'completed' }
                : { type: 'message', id: `msg_${Date.now()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
        const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 };
        const response = { id: `resp_${Date.now()}`, object: 'response', model: field(body, 'model'), status: 'completed', output: [item], usage };
        if (field(body, 'stream') === false) {
            json(res, response);
            return;
        }
        startSse(res);
        sse(res, { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }, 'response.created');
        sse(res, { type: 'response.output_item.added', output_index: 0, item }, 'response.output_item.added');
        if (reply.kind === 'text') {
            sse(res, { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text }, 'response.output_text.delta');
        }
        sse(res, { type: 'response.output_item.done', output_index: 0, item }, 'response.output_item.done');
        sse(res, { type: 'response.completed', response }, 'response.completed');
        res.end();
    },
};
