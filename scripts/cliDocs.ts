// Writes docs/CLI.md's flag table from the server's flag table (server/src/flags/table.ts):
// `npm run docs:cli`. test/docs/docsFlags.test.ts fails when the page and the table differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { flagsMarkdown } from '../server/src/flags/render.js';
import { FLAGS } from '../server/src/flags/table.js';

export const CLI_DOC = resolve(__dirname, '../docs/CLI.md');
const BEGIN = '<!-- flags: generated from server/src/flags/table.ts by `npm run docs:cli`; edit the table, not this -->';
const END = '<!-- end of generated flags -->';

/** `markdown` with the generated table between the markers put back as the flag table says. */
export function withFlagTable(markdown: string): string {
    const start = markdown.indexOf(BEGIN);
    const end = markdown.indexOf(END);
    if (start === -1 || end < start) {
        throw new Error(`docs/CLI.md has lost its markers; put them back around the flag table:\n${BEGIN}\n${END}`);
    }
    return `${markdown.slice(0, start)}${BEGIN}\n${flagsMarkdown(FLAGS)}\n${markdown.slice(end)}`;
}

if (require.main === module) {
    writeFileSync(CLI_DOC, withFlagTable(readFileSync(CLI_DOC, 'utf8')));
}
