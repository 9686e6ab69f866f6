import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
// The servers the exercises start keep tasks in this test process's state folder, never the user's.
import '../support/serverState.js';

const SCRIPT = resolve(__dirname, '../../scripts/exercises.sh');

interface Run {
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
}

/** Runs the script with bash (no reliance on its executable bit) and collects its output. */
async function runScript(args: string[] = [], timeoutMs = 150_000): Promise<Run> {
    const child = spawn('bash', [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // SIGTERM lets the script's trap stop the server it started.
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    return { code, signal, stdout, stderr };
}

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

describe('scripts/exercises.sh (curl + jq walkthrough of the wire protocol)', () => {
    it('passes all ten exercises against the server it starts, then stops that server', { timeout: 180_000 }, async () => {
        const run = await runScript();
        const output = `--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
        assert.equal(run.code, 0, `the script exited with ${run.code ?? run.signal}\n${output}`);
        assert.match(run.stdout, /^exercises: 10 passed, 0 failed\b/m, output);
        assert.doesNotMatch(run.stdout, /✗ FAIL/, output);
        for (let n = 1; n <= 10; n++) {
            assert.match(run.stdout, new RegExp(`^== ${n}\\. `, 'm'), `exercise ${n} has a heading`);
        }

        const started = /^started server \(pid (\d+)\) at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(run.stdout);
        assert.ok(started, `the script reports the server it started\n${output}`);
        assert.equal(isAlive(Number(started[1])), false, 'the server is stopped when the script exits');
    });
});
