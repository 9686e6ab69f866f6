import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { STEP_TITLES } from '../../scripts/demo/steps.js';
import { startHttpServer } from '../support/helpers.js';
import { runNodeToEnd, type Ended } from '../support/runToEnd.js';

const ROOT = resolve(__dirname, '../..');
const WALKTHROUGH = resolve(ROOT, 'docs/WALKTHROUGH.md');

/** Runs `scripts/demo.ts` the way `npm run demo -- …` does (tsx), with stdout piped: no colours, no prompts. */
async function runDemo(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ended> {
    return runNodeToEnd(['--import', 'tsx', 'scripts/demo.ts', ...args], { cwd: ROOT, env, limitMs: 90_000 });
}

function assertAllStepsPassed(run: Ended): void {
    assert.equal(run.code, 0, `the demo failed:\n${run.stdout}\n${run.stderr}`);
    STEP_TITLES.forEach((title, i) => {
        assert.ok(run.stdout.includes(`✔ Step ${i + 1}: ${title} — passed`), `step ${i + 1} reported success:\n${run.stdout}`);
    });
    assert.doesNotMatch(run.stdout, /✘|✗/);
    assert.match(run.stdout, new RegExp(`${STEP_TITLES.length}/${STEP_TITLES.length} steps passed`));
    assert.ok(!run.stdout.includes('\u001b['), 'no colours when stdout is not a terminal');
}

describe('walkthrough (npm run demo)', () => {
    it('docs/WALKTHROUGH.md has one "### Step N: title" heading per demo step, in order', () => {
        const headings = [...readFileSync(WALKTHROUGH, 'utf8').matchAll(/^### Step (\d+): (.+)$/gm)].map(m => [Number(m[1]), m[2]!.trim()]);
        assert.deepEqual(
            headings,
            STEP_TITLES.map((title, i) => [i + 1, title]),
        );
        assert.equal(STEP_TITLES.length, 8);
    });

    it('--list-steps prints the same titles', async () => {
        const run = await runDemo(['--list-steps']);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual(run.stdout.trimEnd().split('\n'), STEP_TITLES.map((title, i) => `${i + 1}. ${title}`));
    });

    it('--non-interactive starts its own server and passes every step', async () => {
        const run = await runDemo(['--non-interactive'], { MCP_TASKS_TOKEN: '' });
        assertAllStepsPassed(run);
        assert.match(run.stdout, /started dist\/server\.js at http:\/\/127\.0\.0\.1:\d+\/mcp/);
        assert.match(run.stdout, /server stderr: .*\[slow_compute\] cancelled "long-job" at \d+\/30/, 'step 6 shows the server log line');
        assert.match(run.stdout, /--non-interactive: answering "yes" automatically/);
        assert.match(run.stdout, /Confirmed: would delete 'notes\/old-draft\.md'/);
        assert.match(run.stdout, /canned haiku/);
        assert.match(run.stdout, /curl -sN "\$MCP_URL" -H "Authorization: Bearer \$MCP_TASKS_TOKEN"/, 'the server it starts has a token');
    });

    it('--url uses a running server, sending MCP_TASKS_TOKEN', async () => {
        const token = 'walkthrough-secret';
        const server = await startHttpServer(['--token', token]);
        try {
            const run = await runDemo(['--non-interactive', '--url', server.url], { MCP_TASKS_TOKEN: token });
            assertAllStepsPassed(run);
            assert.match(run.stdout, new RegExp(`using ${server.url.replaceAll('.', '\\.')}`));
            await server.log.waitFor(/\[slow_compute\] cancelled "long-job"/);
        } finally {
            await server.stop();
        }
    });

    it('exits 1 and names the failure when the server refuses it', async () => {
        const server = await startHttpServer(['--token', 'right']);
        try {
            const run = await runDemo(['--non-interactive', '--url', server.url], { MCP_TASKS_TOKEN: 'wrong' });
            assert.equal(run.code, 1, run.stdout + run.stderr);
            assert.match(run.stdout, /✘ Step 1: .* — FAILED: .*Unauthorized.*is MCP_TASKS_TOKEN the server's token\?/);
            assert.match(run.stdout, /0\/8 steps passed/);
        } finally {
            await server.stop();
        }
    });
});
