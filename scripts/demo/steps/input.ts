import { CallToolResultSchema, CreateTaskResultSchema, type CreateMessageResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, waitFor, type DemoContext } from '../context.js';
import { RELATED_TASK, toolResultText } from '../wire.js';
import { connected } from './basics.js';

/** Long enough for a person to answer: tasks/result blocks until the task ends. */
const RESULT_TIMEOUT_MS = 10 * 60_000;

export const CANNED_HAIKU = 'Grey drops on the pond\nripples meet and fade away\nthe old frog stays dry';

interface Asked {
    requestId: string | number;
    message: string;
    taskId?: string;
    statusWhileAsking?: string;
    answer: unknown;
}

/** Step 7: confirm_delete asks the user through elicitation while its task waits in input_required. */
export async function elicitationStep(ctx: DemoContext): Promise<void> {
    const session = connected(ctx);
    const { client } = session;
    const { term } = ctx;
    const filename = 'notes/old-draft.md';
    const asked: Asked[] = [];
    let confirmed = false;

    session.onElicit = async (request, requestId) => {
        const taskId = relatedTaskId(request.params._meta);
        // While the question is open, the task says so.
        const status = taskId ? (await client.experimental.tasks.getTask(taskId)).status : undefined;
        term.note(`the server asks: "${request.params.message}"`);
        if (term.interactive) {
            const reply = await term.ask(`  ${term.paint.bold('? Delete it? [y/N] ')}`);
            confirmed = /^y(es)?$/i.test(reply);
        } else {
            confirmed = true;
            term.note('(--non-interactive: answering "yes" automatically)');
        }
        const answer: ElicitResult = { action: 'accept', content: { confirm: confirmed ? 'delete' : 'keep' } };
        asked.push({ requestId, message: request.params.message, taskId, statusWhileAsking: status, answer });
        return answer;
    };
    try {
        const { task } = await client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename }, task: {} } }, CreateTaskResultSchema);
        const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: RESULT_TIMEOUT_MS });
        const ask = asked[0];
        expect(ctx, 'one elicitation/create arrived, tied to the task by related-task _meta', asked.length === 1 && ask?.taskId === task.taskId, asked);
        expect(ctx, 'while it was open the task was input_required', ask?.statusWhileAsking === 'input_required', ask?.statusWhileAsking);
        await expectInputStatuses(ctx, task.taskId);
        const expected = confirmed ? `Confirmed: would delete '${filename}' (demo: nothing deleted)` : 'Deletion cancelled';
        expect(ctx, `the result follows the answer: ${expected}`, toolResultText(result) === JSON.stringify(expected), toolResultText(result));
        term.command('curl', ctx.curl.request('tools/call', { name: 'confirm_delete', arguments: { filename }, task: {} }));
        term.command('curl (the answer: a JSON-RPC response to the elicitation/create id from the GET stream)', ctx.curl.post({ id: ask?.requestId ?? 0, result: ask?.answer }));
    } finally {
        session.onElicit = async () => ({ action: 'decline' });
    }
}

/** Step 8: write_haiku asks the client's model through sampling; the demo answers with a canned haiku. */
export async function samplingStep(ctx: DemoContext): Promise<void> {
    const session = connected(ctx);
    const { client } = session;
    const { term } = ctx;
    const topic = 'autumn rain';
    const asked: Asked[] = [];

    session.onSample = async (request, requestId) => {
        const prompt = request.params.messages[0]?.content;
        term.note('(the demo answers sampling itself with a canned haiku; VS Code would ask a language model, with the user\'s consent)');
        const answer: CreateMessageResult = { role: 'assistant', model: 'demo-canned-haiku', content: { type: 'text', text: CANNED_HAIKU }, stopReason: 'endTurn' };
        asked.push({ requestId, message: prompt && 'text' in prompt ? String(prompt.text) : '', taskId: relatedTaskId(request.params._meta), answer });
        return answer;
    };
    try {
        const { task } = await client.request({ method: 'tools/call', params: { name: 'write_haiku', arguments: { topic }, task: {} } }, CreateTaskResultSchema);
        const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: RESULT_TIMEOUT_MS });
        const ask = asked[0];
        expect(ctx, `one sampling/createMessage arrived for the task: "${ask?.message ?? ''}"`, asked.length === 1 && ask?.taskId === task.taskId, asked);
        await expectInputStatuses(ctx, task.taskId);
        const text = (result.content as { text?: string }[])[0]?.text ?? '';
        text.split('\n').forEach(line => term.note(`│ ${line}`));
        expect(ctx, 'the task completed with the canned haiku', text === `Haiku about ${topic}:\n${CANNED_HAIKU}`, text);
        term.command('curl', ctx.curl.request('tools/call', { name: 'write_haiku', arguments: { topic }, task: {} }));
        term.command('curl (the answer to sampling/createMessage)', ctx.curl.post({ id: ask?.requestId ?? 0, result: ask?.answer }));
    } finally {
        session.onSample = undefined;
    }
}

/** The status notifications of a task that waited for input, once the last one has arrived. */
async function expectInputStatuses(ctx: DemoContext, taskId: string): Promise<void> {
    const session = connected(ctx);
    const statuses = await waitFor(() => (session.statusesOf(taskId).includes('completed') ? session.statusesOf(taskId).join(' → ') : undefined), 5000);
    expect(ctx, 'status notifications went input_required → working → completed', statuses === 'input_required → working → completed', session.statusesOf(taskId));
}

function relatedTaskId(meta: Record<string, unknown> | undefined): string | undefined {
    return (meta?.[RELATED_TASK] as { taskId?: string } | undefined)?.taskId;
}
