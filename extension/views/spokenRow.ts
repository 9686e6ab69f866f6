// What a screen reader says for a Tasks row and a tool picker entry (no vscode import: unit-tested).
// The row's description is written for the eye ("failed · exit 1 · 12s"); read aloud, "·" is a
// "middle dot" and "<1m" is "less than one m", where VS Code's own views say "Failed, in 600ms".
import * as l10n from '@vscode/l10n';

/** The row's accessible name: its label, then each part of its description in words, comma-separated. */
export function spokenRow(label: string, description: string): string {
    const parts = description.split(' · ').filter(part => part.length > 0).map(spokenPart);
    return [label, ...parts].join(', ');
}

/** One part of a row's description: times and percents in words; other words as they are. */
function spokenPart(part: string): string {
    let m: RegExpExecArray | null;
    if (part === '<1m') {
        return l10n.t({ message: 'under a minute so far', comment: ['How long a running task has run: less than a minute'] });
    }
    if ((m = /^(\d+)%$/.exec(part))) {
        return l10n.t({ message: '{0} percent', args: [m[1]!], comment: ['A task\'s progress, read aloud'] });
    }
    if ((m = /^(\d+)s$/.exec(part))) {
        return l10n.t({ message: 'in {0} seconds', args: [m[1]!], comment: ['How long a finished task took, read aloud'] });
    }
    if ((m = /^(\d+)m (\d+)s$/.exec(part))) {
        return l10n.t({ message: 'in {0} minutes {1} seconds', args: [m[1]!, Number(m[2])], comment: ['How long a finished task took, read aloud'] });
    }
    if ((m = /^(\d+)m$/.exec(part))) {
        return l10n.t({ message: '{0} minutes so far', args: [m[1]!], comment: ['How long a running task has run, read aloud'] });
    }
    if ((m = /^(\d+)h (\d+)m$/.exec(part))) {
        return l10n.t({ message: '{0} hours {1} minutes', args: [m[1]!, Number(m[2])], comment: ['How long a task has run, read aloud'] });
    }
    return part;
}

/**
 * A tool's description as the picker shows and reads it: its first sentence, at most `max`
 * characters (a long description made entries of 300–800 characters to hear out). The whole
 * description stays in the form and the tool's hover.
 */
export function pickerDetail(description: string | undefined, max = 120): string | undefined {
    const flat = description?.replace(/\s+/g, ' ').trim();
    if (!flat) {
        return undefined;
    }
    const sentence = /^.*?[.!?](?=\s|$)/.exec(flat)?.[0] ?? flat;
    return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}
