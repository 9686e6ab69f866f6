/** Renders a CallToolResult as Markdown for the read-only result editor (no vscode import). */
export interface ResultLike {
    content?: { type: string; text?: string; mimeType?: string; uri?: string }[];
    structuredContent?: unknown;
    isError?: boolean;
}

export function formatResult(title: string, taskId: string, status: string, result: ResultLike): string {
    const lines = [`# ${title}`, '', `Task \`${taskId}\` — **${status}**${result.isError ? ' — ⚠ the tool reported an error (isError)' : ''}`, ''];
    for (const part of result.content ?? []) {
        if (part.type === 'text') {
            lines.push(part.text ?? '', '');
        } else {
            lines.push(`_[${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}${part.uri ? ` ${part.uri}` : ''} content]_`, '');
        }
    }
    if (result.structuredContent !== undefined) {
        lines.push('## Structured content', '', '```json', JSON.stringify(result.structuredContent, null, 2), '```', '');
    }
    return lines.join('\n');
}
