/** Renders a CallToolResult as Markdown for the read-only result editor (no vscode import). */
import * as l10n from '@vscode/l10n';
import { plainText } from '../errorText';

export interface ResultLike {
    content?: { type: string; text?: string; mimeType?: string; uri?: string }[];
    structuredContent?: unknown;
    isError?: boolean;
}

/** What the result view knows beyond the result: how the task ended, and whether its tab opens the output. */
export interface ResultContext {
    /** How a cancelled task ended, in words (see endedInWords); replaces the tool's own "Task cancelled: …" line. */
    ended?: string;
    /** The result's tab offers Show Output in its title bar (a task's result): a "Full log" line points there. */
    outputButton?: boolean;
}

/** The facts about a finished task that say how it ended. */
export interface EndFacts {
    status: string;
    /** The status message as the server sent it. */
    statusMessage?: string;
    clientKind: 'copilot' | 'editor' | 'other';
    /** This extension sent the cancel (the user's sidebar Cancel). */
    cancelledHere: boolean;
}

/** How a cancelled task ended, as it was; undefined when it was not cancelled. */
export function endedInWords(facts: EndFacts): string | undefined {
    if (facts.status !== 'cancelled') {
        return undefined;
    }
    const message = facts.statusMessage?.trim() ?? '';
    // The server's own words (server/src/tasks/runtime.ts): the sidebar cancels as the owner.
    if (facts.cancelledHere || message === 'Cancelled from the MCP Tasks sidebar' || (message === 'Cancelled by the client' && facts.clientKind === 'editor')) {
        return l10n.t('Cancelled by you');
    }
    if (/\bshut(?:ting)? down\b/i.test(message)) {
        return l10n.t('Stopped: the server shut down');
    }
    if (/stopped following it|stopped waiting/i.test(message)) {
        return facts.clientKind === 'copilot' ? l10n.t('Copilot stopped waiting') : l10n.t('The app that started it stopped waiting');
    }
    if (message === 'Cancelled by the client') {
        return facts.clientKind === 'copilot' ? l10n.t('Cancelled by Copilot') : l10n.t('Cancelled by the app that started it');
    }
    return message ? plainText(message) : l10n.t('Cancelled');
}

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string): string[] {
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map(run => run[0].length));
    const fence = '`'.repeat(longest + 1);
    return [`${fence}text`, text.replace(/\n$/, ''), fence];
}

/** `taskId` undefined: a direct call, which has no id to show. */
export function formatResult(title: string, taskId: string | undefined, status: string, result: ResultLike, context: ResultContext = {}): string {
    const heading =
        taskId === undefined
            ? l10n.t({ message: 'Direct call (not a task) — {0}', args: [`**${status}**`], comment: ['Markdown: {0} is the status, already formatted'] })
            : l10n.t({ message: 'Task {0} — {1}', args: [`\`${taskId}\``, `**${status}**`], comment: ['Markdown: {0} is the task id, {1} its status (both already formatted)'] });
    const note = context.ended ?? (result.isError ? `⚠ ${l10n.t('the tool reported an error')}` : undefined);
    const lines = [`# ${title}`, '', `${heading}${note ? ` — ${note}` : ''}`, ''];
    let hasLog = false;
    for (const part of result.content ?? []) {
        if (part.type === 'text') {
            const text = part.text ?? '';
            // The server's "Task cancelled: <why>": the heading already says how it ended.
            if (context.ended && /^Task cancelled: [^\n]*$/.test(text.trim())) {
                continue;
            }
            hasLog ||= /^Full log\b/m.test(text);
            // Output and poems keep their lines; a failure's text is an error message, in words without protocol codes.
            lines.push(...fenced(result.isError ? plainText(text) : text), '');
        } else {
            const kind = `${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}${part.uri ? ` ${part.uri}` : ''}`;
            lines.push(`_[${l10n.t({ message: '{0} content', args: [kind], comment: ['{0} is a content type such as "image image/png"'] })}]_`, '');
        }
    }
    if (hasLog && context.outputButton) {
        // A Markdown preview runs no command: link: the way to the log is the tab's own button.
        lines.push(`_${l10n.t('The full log opens with Show Output in this tab’s title bar.')}_`, '');
    }
    if (result.structuredContent !== undefined) {
        lines.push(`## ${l10n.t('Structured content')}`, '', '```json', JSON.stringify(withoutShownSummary(result), null, 2), '```', '');
    }
    return lines.join('\n');
}

/** A command's digest is both the first text block and `summary`: shown once, with its lines, above; not again as one escaped JSON string. */
function withoutShownSummary(result: ResultLike): unknown {
    const structured = result.structuredContent;
    if (!structured || typeof structured !== 'object' || Array.isArray(structured)) {
        return structured;
    }
    const { summary, ...rest } = structured as Record<string, unknown>;
    const shown = typeof summary === 'string' && (result.content ?? []).some(part => part.type === 'text' && part.text?.trim() === summary.trim());
    return shown ? rest : structured;
}
