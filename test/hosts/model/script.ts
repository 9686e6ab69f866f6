/**
 * What a scripted model says, and what it was told. A script is a list of turns: "call tool X with
 * args Y", then "finish with text". The model is stateless like a real one: which turn a request
 * gets is the number of tool results already in its conversation, so side requests a host makes
 * (titles, summaries, next-speaker checks) never consume a turn.
 */
export type Turn = { call: string; args: Args | ((previous: string) => Args) } | { text: string };

type Args = Record<string, unknown>;

/** One tool result as the host handed it to the model: exactly what a model would read. */
export interface SeenResult {
    /** The text the model reads (for structured results, the JSON the host put there). */
    text: string;
    /**
     * The host's error flag, where its API has one: Anthropic `is_error`, or Gemini CLI's
     * `{error}` response in place of `{output}`. Undefined where the API has none (Responses,
     * Chat Completions): there the text is all the model has.
     */
    isError?: boolean;
    /** The result part of the request, untouched. */
    raw: unknown;
}

/** What a dialect reads out of one request body. */
export interface RequestView {
    /** Tool names offered to the model, as the host spells them. */
    tools: string[];
    /** Tool results in the conversation, oldest first. */
    results: SeenResult[];
}

/** What the model answers: a tool call (with the host's own spelling of the name) or text. */
export type Reply = { kind: 'call'; name: string; args: Record<string, unknown>; id: string } | { kind: 'text'; text: string };

export interface RecordedRequest {
    dialect: string;
    path: string;
    body: unknown;
    view: RequestView;
    reply: Reply;
}

/**
 * The host's name for our tool `name`: exactly it, or it after a prefix ending in a separator
 * (`mcp__tasks__greet`, `tasks_greet`, `mcp_tasks_greet`), since every host namespaces MCP tools
 * its own way. The shortest such name wins: `tasks_start_run_tests` also ends in `_run_tests`.
 */
export function offeredName(tools: string[], name: string): string | undefined {
    const candidates = tools.filter(tool => tool === name || (tool.endsWith(name) && /[_.:-]$/.test(tool.slice(0, -name.length))));
    return candidates.sort((a, b) => a.length - b.length)[0];
}

export function decideReply(script: Turn[], view: RequestView): Reply {
    // A request that offers no tools is a host's side question (a title, a summary): plain text.
    if (view.tools.length === 0) {
        return { kind: 'text', text: 'Scripted model.' };
    }
    const index = view.results.length;
    const turn = script[Math.min(index, script.length - 1)];
    if (turn === undefined || 'text' in turn) {
        return { kind: 'text', text: turn?.text ?? 'Done.' };
    }
    if (index >= script.length) {
        return { kind: 'text', text: 'Done.' };
    }
    const name = offeredName(view.tools, turn.call);
    if (name === undefined) {
        // Said to the user, so a run shows why the script stopped.
        return { kind: 'text', text: `scripted model: no tool ${turn.call} among ${view.tools.join(', ')}` };
    }
    // A turn may depend on what the model read last (a task id to follow), as a real model's would.
    const args = typeof turn.args === 'function' ? turn.args(view.results[index - 1]?.text ?? '') : turn.args;
    return { kind: 'call', name, args, id: `call_${index}` };
}

/** Every request the model got, with what it read and answered. */
export class Recording {
    readonly requests: RecordedRequest[] = [];

    /** Requests of the conversation itself (the ones that offered tools). */
    get turns(): RecordedRequest[] {
        return this.requests.filter(request => request.view.tools.length > 0);
    }

    /** The tools offered in the first conversation request. */
    get toolsOffered(): string[] {
        return this.turns[0]?.view.tools ?? [];
    }

    /** The tool results of the longest conversation request: each call's result as the model read it. */
    get results(): SeenResult[] {
        return this.turns.reduce<SeenResult[]>((longest, request) => (request.view.results.length > longest.length ? request.view.results : longest), []);
    }
}

/** Text of a content value that is a string or a list of `{ type: 'text', text }` blocks. */
export function contentText(content: unknown): string {
    if (typeof content === 'string') {
        return content;
    }
    if (Array.isArray(content)) {
        return content.map(block => (typeof block === 'string' ? block : typeof block?.text === 'string' ? block.text : JSON.stringify(block))).join('\n');
    }
    return content === undefined ? '' : JSON.stringify(content);
}
