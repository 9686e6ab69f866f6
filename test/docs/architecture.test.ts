// docs/ARCHITECTURE.md's "Where to open" table: each row's file exists and defines the name it
// says to look for (as a declaration: a function, class, interface, type, const or let of that
// name, exported or not, or an `export { name } from` of an entry point), so a rename or a move that forgets the map fails here.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(__dirname, '../..');
const doc = readFileSync(resolve(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const table = doc.slice(doc.indexOf('## Where to open'));
const rows = [...table.matchAll(/^\| (.+?) \| `([^`]+)` \| `([^`]+)` \|$/gm)].map(([, what, file, name]) => ({ what: what!, file: file!, name: name! }));

describe('docs/ARCHITECTURE.md: where to open', () => {
    it('has its rows', () => {
        assert.ok(rows.length >= 30, `${rows.length} rows read`);
    });
    for (const { what, file, name } of rows) {
        it(`${what}: ${file} defines ${name}`, () => {
            const path = resolve(ROOT, file);
            assert.ok(existsSync(path), `${file} exists`);
            const declared = new RegExp(`^\\s*(export\\s+)?(declare\\s+)?(async\\s+)?(function|class|interface|type|const|let|enum)\\s+${name}\\b`, 'm');
            const reExported = new RegExp(`^export\\s+\\{[^}]*\\b${name}\\b[^}]*\\}\\s+from`, 'm');
            const text = readFileSync(path, 'utf8');
            assert.ok(declared.test(text) || reExported.test(text), `${file} declares or re-exports ${name}`);
        });
    }
});
