// The bench's activation probe (`npm run bench -- --only extension`) runs the built extension's
// activate() against its vscode stub: an API the extension starts using at activation must be in
// the stub, or the bench row reads "?" (as it did once vscode.tasks came in).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(__dirname, '../..');

describe('bench activation probe', () => {
    it('activates dist/extension.js against its stub and reports the times', () => {
        const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/programs/activate.ts', resolve(root, 'dist/extension.js')], { cwd: root, encoding: 'utf8', timeout: 60_000 });
        assert.equal(run.status, 0, run.stderr);
        const report = JSON.parse(run.stdout) as { loadMs: unknown; activateMs: unknown; loggedMs: unknown };
        assert.equal(typeof report.activateMs, 'number');
        assert.ok(Number.isFinite(report.activateMs) && (report.activateMs as number) > 0);
        assert.equal(typeof report.loadMs, 'number');
        // activate() logs "activated in N ms" to its output channel: the probe read it back.
        assert.equal(typeof report.loggedMs, 'number');
    });
});
