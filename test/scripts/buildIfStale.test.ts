import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BUNDLES, INPUTS, staleBecause } from '../../scripts/buildIfStale.mjs';

describe('npm start builds only when a source changed', () => {
    const root = mkdtempSync(join(tmpdir(), 'stale-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    const touch = (path: string, seconds: number) => {
        const full = join(root, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, '');
        utimesSync(full, seconds, seconds);
    };

    it('builds when a bundle is missing, skips when every bundle is newer than every source, builds again after an edit', () => {
        touch('server/src/cli.ts', 1000);
        touch('extension/extension.ts', 1000);
        for (const input of INPUTS.filter(path => /\.(m?js|json)$/.test(path))) {
            touch(input, 1000);
        }
        // A folder's own time counts too (a deleted file changes only its folder's).
        for (const folder of ['server/src', 'server', 'extension']) {
            utimesSync(join(root, folder), 1000, 1000);
        }
        assert.equal(staleBecause(root), 'dist/server.js is missing');
        for (const bundle of BUNDLES) {
            touch(bundle, 2000);
        }
        assert.equal(staleBecause(root), undefined);
        touch('server/src/tools/new.ts', 3000);
        assert.equal(staleBecause(root), 'server/src changed since the last build');
    });
});
