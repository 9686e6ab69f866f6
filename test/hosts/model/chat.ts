/** OpenAI Chat Completions (`POST /v1/chat/completions`, SSE), as opencode's openai-compatible provider speaks it. */
import { type Dialect, field, json, list, sse, startSse } from './dialect.js';
import { contentText } from './script.js';

export const chat: Dialect = {
    name: 'chat',
    matches: path => path.startsWith('/v1/chat/completions'),
    read(body) {
        const tools = list(field(body, 'tools')).map(tool => String(field(tool.function, 'name')));
        const results = list(field(body, 'messages'))
            .filter(message => message.role === 'tool')
            .map(message => ({ text: contentText(message.content), raw: message }));
        return { tools, results };
    },
    answer(_path, body, reply, res) {
        const id = `chatcmpl_${Date.now()}`;
        const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: field(body, 'model') };
        const toolCall = reply.kind === 'call' ? { index: 0, id: reply.id, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.args) } } : undefined;
        const finish = reply.kind === 'call' ? 'tool_calls' : 'stop';
        const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
        if (field(body, 'stream') !== true) {
            const message = toolCall ? { role: 'assistant', content: null, tool_calls: [toolCall] } : { role: 'assistant', content: reply.kind === 'text' ? reply.text : '' };
            json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
            return;
        }
        startSse(res);
        const delta = toolCall ? { role: 'assistant', tool_calls: [toolCall] } : { role: 'assistant', content: reply.kind === 'text' ? reply.text : '' };
        sse(res, { ...base, choices: [{ index: 0, delta, finish_reason: null }] });
        sse(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
        sse(res, { ...base, choices: [], usage });
        sse(res, '[DONE]');
        res.end();
    },
};
