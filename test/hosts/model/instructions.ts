/**
 * Where a host put the server's instructions in a model request. Each host puts them somewhere of
 * its own (Claude Code in a system-reminder of the first user message, Codex as the description of
 * our tools' namespace, Gemini CLI in the first user turn's loaded context, opencode in the system
 * message), so the request is searched as a whole rather than one field per dialect.
 */

export interface FoundInstructions {
    /** The JSON path of the string that holds them, e.g. `messages.0.content.3.text`. */
    where: string;
    /**
     * The line that holds `marker`: our instructions are one line, and the lines around them are
     * the host's own words (headers, tags), which are not ours to assert on.
     */
    text: string;
}

/** The first string of `body` that contains `marker`, depth first in field order. */
export function findInstructions(body: unknown, marker: string, where = ''): FoundInstructions | undefined {
    if (typeof body === 'string') {
        const at = body.indexOf(marker);
        if (at < 0) {
            return undefined;
        }
        const start = body.lastIndexOf('\n', at) + 1;
        const end = body.indexOf('\n', at);
        return { where, text: body.slice(start, end < 0 ? undefined : end).trim() };
    }
    if (typeof body === 'object' && body !== null) {
        for (const [key, value] of Object.entries(body)) {
            const found = findInstructions(value, marker, where ? `${where}.${key}` : key);
            if (found) {
                return found;
            }
        }
    }
    return undefined;
}
