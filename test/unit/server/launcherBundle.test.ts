/**
 * dist/server.js, the launcher every host and the extension start: it turns on Node's compile cache
 * and loads the CLI bundle beside it with require. Loaded with import(), a CommonJS file is first
 * scanned whole for its named exports (cjs-module-lexer): for the 1.4 MB CLI that made the first
 * answer over stdio about 2.5 times slower than running dist/server-main.js directly, where a host
 * that waits 3 s for it falls back to no tasks (docs/HOSTS.md).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

const DIST = resolve(__dirname, '../../../dist');

describe('the server launcher bundle (dist/server.js)', () => {
    it('loads dist/server-main.js with require, never import()', () => {
        const launcher = readFileSync(resolve(DIST, 'server.js'), 'utf8');
        assert.match(launcher, /\brequire\("\.\/server-main\.js"\)/);
        assert.doesNotMatch(launcher, /\bimport\("\.\/server-main\.js"\)/);
        assert.ok(launcher.length < 64 * 1024, `the launcher stays small (${launcher.length} bytes): the CLI is the other file`);
    });
});
