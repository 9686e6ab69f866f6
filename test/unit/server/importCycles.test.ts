/**
 * No import loop in the server's protocol layers: a module of server/src/mcp or server/src/gateway
 * never reaches itself again through the modules it imports. Read from the source text, with no
 * compiler: every `import … from './…'`, `export … from './…'` and `import './…'` of a .ts file.
 *
 * Type-only imports count too. They load nothing at run time, so they cannot make load order
 * decide which binding is still undefined; but a module that names its callers' types is still
 * knotted to them (the loop this test was written for, mcp/router.ts ↔ mcp/rev2026/serve.ts,
 * was one), and keeping the layers apart costs nothing where there is none.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../server/src');
const WALKED = ['mcp', 'gateway'];

/** A static import or re-export with a relative specifier (group 1), or a bare import of one (group 2). */
const IMPORT = /^(?:(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'|import\s+'(\.{1,2}\/[^']+)')/gm;

/** The relative specifiers a module's text imports. */
function importsOf(text: string): string[] {
    return [...text.matchAll(IMPORT)].map(match => (match[1] ?? match[2])!);
}

function tsFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? tsFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
    });
}

/** Each walked module with the walked modules it imports. */
function importGraph(): Map<string, string[]> {
    const files = WALKED.flatMap(dir => tsFiles(join(SRC, dir)));
    const walked = new Set(files);
    const graph = new Map<string, string[]>();
    for (const file of files) {
        const targets = importsOf(readFileSync(file, 'utf8')).map(specifier => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        graph.set(file, targets.filter(target => walked.has(target)));
    }
    return graph;
}

/** The first loop found, as the modules along it (the first repeated last), or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (node: string): string[] | undefined => {
        const at = path.indexOf(node);
        if (at >= 0) {
            return [...path.slice(at), node];
        }
        if (done.has(node)) {
            return undefined;
        }
        path.push(node);
        for (const next of graph.get(node) ?? []) {
            const cycle = visit(next);
            if (cycle) {
                return cycle;
            }
        }
        path.pop();
        done.add(node);
        return undefined;
    };
    for (const node of graph.keys()) {
        const cycle = visit(node);
        if (cycle) {
            return cycle;
        }
    }
    return undefined;
}

describe('imports of server/src/mcp and server/src/gateway', () => {
    it('form no loop', () => {
        const graph = importGraph();
        assert.ok(graph.size > 20, `read ${graph.size} modules: the walk found the source`);
        assert.ok(graph.get(join(SRC, 'mcp/router.ts'))?.includes(join(SRC, 'mcp/methods.ts')), 'router.ts is read importing methods.ts');
        const cycle = findCycle(graph);
        assert.equal(cycle, undefined, `an import loop: ${cycle?.map(file => relative(SRC, file)).join(' → ')}`);
    });

    it('reads every kind of relative import, and finds a loop of three', () => {
        const text = [
            "import { a } from './a.js';",
            "import type { B } from '../b.js';",
            'import {',
            '    c,',
            '    type C,',
            "} from './c.js';",
            "export { d } from './d.js';",
            "export type { E } from './e.js';",
            "import './f.js';",
            "import { g } from 'node:g';",
            "const h = 'from \\'./h.js\\'';",
        ].join('\n');
        assert.deepEqual(importsOf(text), ['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
        assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), ['a', 'b', 'c', 'a']);
        assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), undefined, 'two paths to one module are no loop');
    });
});
