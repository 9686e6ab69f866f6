/** Renders a CallToolResult as Markdown for the read-only result editor (no vscode import). */
import * as l10n from '@vscode/l10n';
import { plainText } from '../errorText';

export interface ResultLike {
    content?: { type: string; text?: string; mimeType?: string; uri?: string }[];
    structuredContent?: unknown;
    isError?: boolean;
}

/** `taskId` undefined: a direct call, which has no id to show. */
export function formatResult(title: string, taskId: string | undefined, status: string, result: ResultLike): string {
    const heading =
        taskId === undefined
            ? l10n.t({ message: 'Direct call (not a task) — {0}', args: [`**${status}**`], comment: ['Markdown: {0} is the status, already formatted'] })
            : l10n.t({ message: 'Task {0} — {1}', args: [`\`${taskId}\``, `**${status}**`], comment: ['Markdown: {0} is the task id, {1} its status (both already formatted)'] });
    const lines = [`# ${title}`, '', `${heading}${result.isError ? ` — ⚠ ${l10n.t('the tool reported an error')}` : ''}`, ''];
    for (const part of result.content ?? []) {
        if (part.type === 'text') {
            // A failure's text is an error message: in words, without protocol codes.
            lines.push(result.isError ? plainText(part.text ?? '') : (part.text ?? ''), '');
        } else {
            const kind = `${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}${part.uri ? ` ${part.uri}` : ''}`;
            lines.push(`_[${l10n.t({ message: '{0} content', args: [kind], comment: ['{0} is a content type such as "image image/png"'] })}]_`, '');
        }
    }
    if (result.structuredContent !== undefined) {
        lines.push(`## ${l10n.t('Structured content')}`, '', '```json', JSON.stringify(result.structuredContent, null, 2), '```', '');
    }
    return lines.join('\n');
}
