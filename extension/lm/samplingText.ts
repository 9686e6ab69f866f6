// The vscode-free half of sampling: MCP messages to plain role/text pairs, stop sequences
// applied to a streamed reply, and when to count tokens against maxTokens.
import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';

export interface PlainMessage {
    role: 'user' | 'assistant';
    text: string;
}

/** A request we cannot send to a VS Code model; the message says why. */
export class UnsupportedSamplingInput extends Error {}

/**
 * Text-only messages, in order. The VS Code API has no system role, so the system prompt
 * goes first as a user message marked "System:".
 */
export function plainMessages(params: Pick<CreateMessageRequest['params'], 'messages' | 'systemPrompt'>): PlainMessage[] {
    const out: PlainMessage[] = [];
    if (params.systemPrompt) {
        out.push({ role: 'user', text: `System: ${params.systemPrompt}` });
    }
    params.messages.forEach((message, i) => {
        const blocks = Array.isArray(message.content) ? message.content : [message.content];
        const texts = blocks.map(block => {
            if (block.type !== 'text') {
                throw new UnsupportedSamplingInput(`Message ${i + 1} has ${block.type} content; only text can be sent to a VS Code language model`);
            }
            return block.text;
        });
        out.push({ role: message.role === 'assistant' ? 'assistant' : 'user', text: texts.join('\n') });
    });
    if (!out.some(m => m.role === 'user')) {
        throw new UnsupportedSamplingInput('The request has no user message');
    }
    return out;
}

/** How much of a request the consent question quotes. */
const EXCERPT_MAX = 120;

/** The start of what a request asks (its last user message), on one line, for the consent question. */
export function requestExcerpt(params: Pick<CreateMessageRequest['params'], 'messages'>): string {
    const last = [...params.messages].reverse().find(message => message.role === 'user');
    const blocks = last ? (Array.isArray(last.content) ? last.content : [last.content]) : [];
    const text = blocks
        .map(block => (block.type === 'text' ? block.text : ''))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim();
    return text.length > EXCERPT_MAX ? `${text.slice(0, EXCERPT_MAX - 1)}…` : text;
}

/** Collects streamed text and stops at the first stop sequence, which is not kept. */
export class StopScanner {
    private readonly stops: string[];
    private readonly longest: number;
    private collected = '';

    constructor(stopSequences: readonly string[] | undefined) {
        this.stops = (stopSequences ?? []).filter(s => s !== '');
        this.longest = Math.max(0, ...this.stops.map(s => s.length));
    }

    get text(): string {
        return this.collected;
    }

    /** Adds a chunk; true once a stop sequence has appeared (the text is then cut before it). */
    push(chunk: string): boolean {
        // A stop sequence may straddle chunks, so look back just far enough into the old text.
        const from = Math.max(0, this.collected.length - this.longest + 1);
        this.collected += chunk;
        let cut = -1;
        for (const stop of this.stops) {
            const at = this.collected.indexOf(stop, from);
            if (at !== -1 && (cut === -1 || at < cut)) {
                cut = at;
            }
        }
        if (cut === -1) {
            return false;
        }
        this.collected = this.collected.slice(0, cut);
        return true;
    }
}

/**
 * Counting tokens on every chunk would be slow, so count only when the text could have
 * reached the limit, assuming a token is at least half a character. Best effort: the
 * provider is also asked for max_tokens.
 */
export class TokenBudget {
    private nextCheckAt: number;

    constructor(private readonly maxTokens: number) {
        this.nextCheckAt = Math.ceil(maxTokens / 2);
    }

    /** Whether the text, now this long, should be counted. */
    due(textLength: number): boolean {
        return textLength >= this.nextCheckAt;
    }

    /** Records a count; true when the limit is reached. */
    reached(textLength: number, tokens: number): boolean {
        if (tokens >= this.maxTokens) {
            return true;
        }
        this.nextCheckAt = textLength + Math.max(1, Math.ceil((this.maxTokens - tokens) / 2));
        return false;
    }
}
