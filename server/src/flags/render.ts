// --help and docs/CLI.md's tables, written from a flag table (./table.ts): the docs test compares
// the page with these, and `npm run docs:cli` rewrites it.
import { envName, type Flag } from './spec.js';
import { shownDefault } from './table.js';

const WIDTH = 100;
const INDENT = 31;

/** How the flag is written in a usage line: `-h, --help`, `--port PORT`, `--wrap -- PROGRAM ARG…`. */
export function usageOf(flag: Flag): string {
    const long = `--${flag.name}${'arg' in flag ? ` ${flag.arg}` : flag.type === 'command' ? ' -- PROGRAM ARG…' : ''}`;
    return flag.short ? `-${flag.short}, ${long}` : long;
}

/** Markdown as plain text: code spans and links lose their marks. */
function plain(markdown: string): string {
    return markdown.replace(/`([^`]*)`/g, '$1').replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');
}

function wrap(text: string, width: number): string[] {
    const lines: string[] = [];
    let line = '';
    for (const word of text.split(/\s+/).filter(Boolean)) {
        if (line && line.length + 1 + word.length > width) {
            lines.push(line);
            line = word;
        } else {
            line = line ? `${line} ${word}` : word;
        }
    }
    return line ? [...lines, line] : lines;
}

/** The flag's entry in --help: its usage and help, then its default and variable on a line of their own. */
function helpEntry(flag: Flag): string {
    const fallback = flag.type === 'switch' || flag.type === 'off' ? flag.shownDefault : shownDefault(flag);
    const facts = [fallback === undefined ? undefined : /^\(/.test(fallback) ? fallback.slice(1, -1) : `default ${plain(fallback)}`, envName(flag) && `env ${envName(flag)}${flag.type === 'command' ? ', a JSON array' : ''}`].filter(Boolean);
    const usage = `  ${usageOf(flag)}`;
    const lines = [...wrap(plain(flag.help), WIDTH - INDENT), ...(facts.length > 0 ? wrap(`(${facts.join('; ')})`, WIDTH - INDENT) : [])];
    const first = usage.length < INDENT - 1 ? [`${usage.padEnd(INDENT)}${lines.shift() ?? ''}`] : [usage];
    return [...first, ...lines.map(line => `${' '.repeat(INDENT)}${line}`)].join('\n');
}

/** The usage text: `header`, the flags by group (in the table's order), then `footer`. */
export function helpText(table: readonly Flag[], header: string, footer: string): string {
    const groups = [...new Set(table.map(flag => flag.group))];
    const sections = groups.map(group => `${group}:\n${table.filter(flag => flag.group === group).map(helpEntry).join('\n')}\n`);
    return `${header}\n${sections.join('\n')}\n${footer}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** `1h`, `4194304` (4 MiB); prose and marked-up defaults as they are. */
function markdownDefault(text: string): string {
    if (/`|^\(|^a |^off$/.test(text)) {
        return text;
    }
    const [value, ...rest] = text.split(' ');
    return [`\`${value}\``, ...rest].join(' ');
}

/** docs/CLI.md's flag table: flag, variable, default, meaning. */
export function flagsMarkdown(table: readonly Flag[]): string {
    const rows = table.map(flag => {
        const usage = flag.short ? `\`-${flag.short}\`, \`${usageOf({ ...flag, short: undefined })}\`` : `\`${usageOf(flag)}\``;
        const variable = envName(flag);
        const fallback = shownDefault(flag);
        const shown = fallback === undefined ? '' : markdownDefault(fallback);
        const meaning = flag.docs ? `${flag.help} ${flag.docs}` : flag.help;
        return `| ${cell(usage)} | ${variable ? `\`${variable}\`` : ''} | ${cell(shown)} | ${cell(meaning)} |`;
    });
    return ['| flag | environment variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
