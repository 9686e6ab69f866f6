import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { STEPS_2026 } from '../../scripts/demo/steps2026.js';
import { runNodeToEnd, type Ended } from '../support/runToEnd.js';

const ROOT = resolve(__dirname, '../..');

/** `npm run demo -- ARGS` (tsx), stdout piped: no colours, no prompts. */
async function runDemo(args: string[]): Promise<Ended> {
    return runNodeToEnd(['--import', 'tsx', 'scripts/demo.ts', ...args], { cwd: ROOT, env: { MCP_TASKS_TOKEN: '' }, limitMs: 90_000 });
}

describe('walkthrough against protocol 2026-07-28 (npm run demo -- --protocol 2026-07-28)', () => {
    it('--list-steps prints its own steps', async () => {
        const run = await runDemo(['--protocol', '2026-07-28', '--list-steps']);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual(run.stdout.trimEnd().split('\n'), STEPS_2026.map((step, i) => `${i + 1}. ${step.title}`));
    });

    it('--non-interactive passes every step against a server it starts', async () => {
        const run = await runDemo(['--protocol', '2026-07-28', '--non-interactive']);
        assert.equal(run.code, 0, `the demo failed:\n${run.stdout}\n${run.stderr}`);
        STEPS_2026.forEach((step, i) => assert.ok(run.stdout.includes(`✔ Step ${i + 1}: ${step.title} — passed`), `step ${i + 1}:\n${run.stdout}`));
        assert.doesNotMatch(run.stdout, /✘|✗/);
        assert.match(run.stdout, /"resultType":"task"/);
        assert.match(run.stdout, /Mcp-Method: tasks\/update/);
    });

    it('refuses an unknown --protocol', async () => {
        const run = await runDemo(['--protocol', '2099-01-01', '--list-steps']);
        assert.equal(run.code, 2);
        assert.match(run.stderr, /--protocol must be 2025-11-25 or 2026-07-28/);
    });
});
