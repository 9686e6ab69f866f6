import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { satisfies, serverRange, supportedRange, unsupportedNode } from '../../scripts/nodeRange.mjs';

const root = resolve(__dirname, '../..');

describe('supported Node ranges (package.json and server/package.json engines.node)', () => {
    it('is the range every tool accepts: 22 from 22.19, then 24 and later', () => {
        assert.equal(supportedRange(), '^22.19.0 || >=24');
    });

    it('accepts 22.19+, 24 and later, and refuses 20, early 22 and 23', () => {
        const range = supportedRange();
        for (const ok of ['22.19.0', 'v22.23.5', '24.0.0', '25.1.2']) {
            assert.ok(satisfies(ok, range), ok);
        }
        for (const bad of ['20.20.2', '22.18.9', '23.11.0', '18.0.0']) {
            assert.ok(!satisfies(bad, range), bad);
        }
    });

    it('says which Node is needed, and nothing when this one fits', () => {
        assert.match(unsupportedNode('20.20.2')!, /This is Node 20\.20\.2; developing MCP Tasks \(build, tests, packaging\) needs Node \^22\.19\.0 \|\| >=24 .*the published server itself runs on Node >=20\.3/);
        assert.equal(unsupportedNode('24.1.0'), undefined);
    });

    it("the published server's range is its own, and takes the Node 20 hosts spawn (AbortSignal.any needs 20.3)", () => {
        assert.equal(serverRange(), '>=20.3');
        for (const ok of ['20.3.0', '20.20.2', '22.23.5', '24.0.0']) {
            assert.ok(satisfies(ok, serverRange()), ok);
        }
        assert.ok(!satisfies('20.2.0', serverRange()));
        assert.ok(!satisfies('18.20.0', serverRange()));
    });

    it('refuses a range form it cannot read rather than guess', () => {
        assert.throws(() => satisfies('22.0.0', '~22.1'), /cannot read "~22\.1"/);
    });

    it('as a command, exits 0 on a supported Node and 1 with the message on another', () => {
        const expected = satisfies(process.versions.node, supportedRange()) ? 0 : 1;
        const run = spawnSync(process.execPath, ['scripts/nodeRange.mjs'], { cwd: root, encoding: 'utf8' });
        assert.equal(run.status, expected, run.stderr);
        assert.equal(run.stderr.includes('developing MCP Tasks'), expected === 1);
    });

    it('is what `npm test` asks first (pretest), so an old Node gets that message instead of a test runner error', () => {
        const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
        assert.equal(pkg.scripts.pretest, 'node scripts/nodeRange.mjs');
    });
});
