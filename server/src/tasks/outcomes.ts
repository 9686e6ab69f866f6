import { errorMessage } from '../util/log.js';
import { RpcError } from '../rpc/errors.js';
import { textResult, type CallToolResult } from '../tools/types.js';
import type { TaskOutcome } from './types.js';

/**
 * How much of a failed result's text its statusMessage carries: VS Code shows only the message of a
 * failed task, so it says what failed; the whole result stays the task's result, and a message
 * holding all of it would hand a model reading both (get_task) the output twice.
 */
export const STATUS_TEXT_MAX = 2000;

/** The text of a result, for a failed task's statusMessage (VS Code shows only that), at most STATUS_TEXT_MAX characters. */
export function resultText(result: CallToolResult): string {
    const text = result.content
        .map(part => (part.type === 'text' ? part.text : ''))
        .join(' ')
        .trim();
    if (text.length > STATUS_TEXT_MAX) {
        const cut = text.slice(0, STATUS_TEXT_MAX - 60).replace(/[\uD800-\uDBFF]$/, '');
        return `${cut}… (${text.length - cut.length} more characters in the task's result)`;
    }
    return text || 'The tool reported an error';
}

/** A thrown RpcError is what the call would have returned; anything else is a tool error result. */
export function outcomeOfError(toolName: string, err: unknown): TaskOutcome {
    if (err instanceof RpcError) {
        return { error: err.toJSON() };
    }
    return { result: textResult(`Tool ${toolName} failed: ${errorMessage(err)}`, true) };
}

/** A cancelled task's outcome; `cascadeFrom` names the parent whose end cancels it. */
export function cancelledOutcome(message: string, cascadeFrom?: string): TaskOutcome {
    const result = textResult(`Task cancelled: ${message}`, true);
    return cascadeFrom ? { result, cascadeFrom } : { result };
}

/**
 * The abort reason for work whose task ended: its message is what matters, and a stack trace
 * (captured through the whole async chain, some 10-20 µs per task) would only point in here.
 */
export function stopReason(message: string): Error {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
        return new Error(message);
    } finally {
        Error.stackTraceLimit = limit;
    }
}

/**
 * A cancelled task's outcome with what its tool had to say when stopped: its first text joins the
 * first block (the one block some hosts show), the rest and its structured content follow.
 */
export function withStopNote(outcome: TaskOutcome, note: CallToolResult): TaskOutcome {
    if (!('result' in outcome)) {
        return outcome;
    }
    const [first, ...rest] = outcome.result.content;
    const [noteFirst, ...noteRest] = note.content;
    const joined = first?.type === 'text' && noteFirst?.type === 'text' ? [{ type: 'text' as const, text: `${first.text}\n\n${noteFirst.text}` }] : [first, noteFirst].filter(part => part !== undefined);
    const result: CallToolResult = { content: [...joined, ...rest, ...noteRest], isError: true };
    if (note.structuredContent) {
        result.structuredContent = note.structuredContent;
    }
    return { ...outcome, result };
}
