/** Gemini (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`), as Gemini CLI speaks it. */
import { type Dialect, field, json, list, sse, startSse } from './dialect.js';

export const gemini: Dialect = {
    name: 'gemini',
    matches: path => /^\/v1(beta|alpha)?\/models\//.test(path),
    answerAside(path, _body, res) {
        if (path.endsWith(':countTokens')) {
            json(res, { totalTokens: 100 });
            return true;
        }
        return false;
    },
    read(body) {
        const tools = list(field(body, 'tools'))
            .flatMap(tool => list(tool.functionDeclarations))
            .map(declaration => String(declaration.name));
        const results = list(field(body, 'contents'))
            .flatMap(content => list(content.parts))
            .filter(part => typeof part.functionResponse === 'object' && part.functionResponse !== null)
            // The model reads the functionResponse object as JSON: keep it whole.
            .map(part => {
                const response = field(part.functionResponse, 'response');
                return { text: JSON.stringify(response), isError: field(response, 'error') !== undefined, raw: part.functionResponse };
            });
        return { tools, results };
    },
    answer(path, body, reply, res) {
        // Side questions asking for JSON (next speaker, model routing) get JSON that answers them all.
        const wantsJson = field(field(body, 'generationConfig'), 'responseMimeType') === 'application/json';
        const text = reply.kind === 'text' && wantsJson ? JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', model_choice: 'flash' }) : undefined;
        const part = reply.kind === 'call' ? { functionCall: { name: reply.name, args: reply.args } } : { text: text ?? reply.text };
        const chunk = {
            candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
            modelVersion: 'scripted',
        };
        if (!path.includes(':streamGenerateContent')) {
            json(res, chunk);
            return;
        }
        startSse(res);
        sse(res, chunk);
        res.end();
    },
};
