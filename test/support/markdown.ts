// The few pieces of Markdown the docs tests read: fenced code blocks (with the HTML comment just
// before each, which marks the blocks a test runs), inline code spans, links and heading anchors.

export interface CodeBlock {
    /** The info string after the opening fence (`bash`, `json`, …). */
    lang: string;
    body: string;
    /** The text of an HTML comment on the line just before the fence, if any (`<!-- x -->` gives `x`). */
    marker?: string;
    /** 1-based lines of the opening and the closing fence. */
    line: number;
    endLine: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/;

export function codeBlocks(markdown: string): CodeBlock[] {
    const lines = markdown.split('\n');
    const blocks: CodeBlock[] = [];
    for (let i = 0; i < lines.length; i++) {
        const open = FENCE.exec(lines[i]!);
        if (!open) {
            continue;
        }
        const end = lines.findIndex((line, j) => j > i && line.trim().startsWith(open[1]!));
        const close = end < 0 ? lines.length : end;
        const marker = /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[i - 1] ?? '')?.[1];
        blocks.push({ lang: open[2]!, body: lines.slice(i + 1, close).join('\n'), marker, line: i + 1, endLine: close + 1 });
        i = close;
    }
    return blocks;
}

/** The text outside fenced code blocks (fences blanked, so line numbers stay). */
export function prose(markdown: string): string {
    const lines = markdown.split('\n');
    for (const block of codeBlocks(markdown)) {
        lines.fill('', block.line - 1, block.endLine);
    }
    return lines.join('\n');
}

/** Inline code spans of `text` (single or double backticks). */
export function codeSpans(text: string): string[] {
    return [...text.matchAll(/(`+)([^`\n]+?)\1(?!`)/g)].map(match => match[2]!.trim());
}

/** Targets of inline links and images: `[x](target)` and `![x](target "title")`. */
export function linkTargets(text: string): string[] {
    const withoutCode = text.replace(/(`+)[^`\n]+?\1(?!`)/g, '');
    return [...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(match => match[1]!);
}

/** The anchors a file offers: GitHub's heading slugs (with -1, -2 for repeats) and explicit ids. */
export function anchors(markdown: string): Set<string> {
    const found = new Set<string>();
    const seen = new Map<string, number>();
    for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
        const slug = heading!
            .replace(/<[^>]+>/g, '')
            .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, '')
            .replace(/\s/g, '-');
        const count = seen.get(slug) ?? 0;
        seen.set(slug, count + 1);
        found.add(count ? `${slug}-${count}` : slug);
    }
    for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) {
        found.add(id!);
    }
    return found;
}

/** A README block the fresh-clone test runs: `<!-- readme-test -->` runs it to its end, `<!-- readme-test: server -->` until it listens. */
export interface ReadmeStep {
    kind: 'run' | 'server';
    script: string;
    line: number;
}

export function readmeSteps(markdown: string): ReadmeStep[] {
    return codeBlocks(markdown)
        .filter(block => block.marker?.startsWith('readme-test'))
        .map(block => {
            const kind = block.marker === 'readme-test' ? 'run' : block.marker === 'readme-test: server' ? 'server' : undefined;
            if (!kind || block.lang !== 'bash') {
                throw new Error(`README line ${block.line}: <!-- ${block.marker} --> before a ${block.lang || 'plain'} block; use readme-test or readme-test: server, on a bash block`);
            }
            return { kind, script: block.body, line: block.line };
        });
}
