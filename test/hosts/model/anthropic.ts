/** Anthropic Messages (`POST /v1/messages`, SSE when `stream`), as Claude Code speaks it. */
import { type Dialect, field, json, list, sse, startSse } from './dialect.js';
import { contentText } from './script.js';

export const anthropic: Dialect = {
    name: 'anthropic',
    matches: path => path.startsWith('/v1/messages'),
    answerAside(path, _body, res) {
        if (path === '/v1/messages/count_tokens') {
            json(res, { input_tokens: 100 });
            return true;
        }
        return false;
    },
    read(body) {
        const tools = list(field(body, 'tools')).map(tool => String(tool.name));
        const results = list(field(body, 'messages'))
            .filter(message => message.role === 'user')
            .flatMap(message => list(message.content))
            .filter(block => block.type === 'tool_result')
            .map(block => ({ text: contentText(block.content), isError: block.is_error === true, raw: block }));
        return { tools, results };
    },
    answer(_path, body, reply, res) {
        const block = reply.kind === 'call' ? { type: 'tool_use', id: `toolu_${reply.id}`, name: reply.name, input: reply.args } : { type: 'text', text: reply.text };
        const stopReason = reply.kind === 'call' ? 'tool_use' : 'end_turn';
        const message = { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model: field(body, 'model'), stop_sequence: null, usage: { input_tokens: 100, output_tokens: 10 } };
        if (field(body, 'stream') !== true) {
            json(res, { ...message, content: [block], stop_reason: stopReason });
            return;
        }
        startSse(res);
        sse(res, { type: 'message_start', message: { ...message, content: [], stop_reason: null } }, 'message_start');
        if (reply.kind === 'call') {
            sse(res, { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }, 'content_block_start');
            sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.args) } }, 'content_block_delta');
        } else {
            sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
            sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } }, 'content_block_delta');
        }
        sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
        sse(res, { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } }, 'message_delta');
        sse(res, { type: 'message_stop' }, 'message_stop');
        res.end();
    },
};
