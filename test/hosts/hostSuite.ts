/**
 * The matrix for one host: install it (a failed install fails every test, saying why), then run
 * each scenario against the real CLI and assert on what the scripted model read.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ensureHost, type InstalledHost } from './hostInstall.js';
import { HOSTS, type HostName } from './hostList.js';
import { describeRun, type HostRun, RUN_TIMEOUT_MS, runOnHost } from './hostRun.js';
import { FAILURE_LINE, failingCommand, greet, LAST_LINE } from './scenarios.js';

// The install (first time: npm) plus a run, with room to spare.
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 300_000;

export function hostSuite(name: HostName): void {
    const host = HOSTS[name];
    describe(`${host.spec}`, { timeout: TEST_TIMEOUT_MS * 3 }, () => {
        let installed: InstalledHost | undefined;
        let installError: Error | undefined;
        let greetRun: Promise<HostRun> | undefined;
        let failingRun: Promise<HostRun> | undefined;

        before(async () => {
            try {
                installed = await ensureHost(name);
            } catch (error) {
                installError = error as Error;
            }
        }, { timeout: TEST_TIMEOUT_MS });

        function installedHost(): InstalledHost {
            if (!installed) {
                assert.fail(`${host.spec} could not be installed from npm: ${installError?.message ?? 'unknown error'}`);
            }
            return installed;
        }

        // Each run serves two tests: the greet run what the model read and which tools it was
        // offered, the failing command's run its failure line and its last line.
        const greeted = () => (greetRun ??= runOnHost(installedHost(), greet));
        const failed = () => (failingRun ??= runOnHost(installedHost(), failingCommand));

        it('greet: the model reads the greeting', { timeout: TEST_TIMEOUT_MS }, async t => {
            const run = await greeted();
            const result = run.recording.results[0];
            assert.ok(result, `the model never got a tool result\n${describeRun(run)}`);
            t.diagnostic(`the model read: ${JSON.stringify(result.text.slice(0, 300))}`);
            assert.match(result.text, /Hello, Ada/, `the model read: ${result.text}`);
        });

        it('tools offered: the host offers our tools to the model', { timeout: TEST_TIMEOUT_MS }, async t => {
            const run = await greeted();
            const offered = run.recording.toolsOffered;
            t.diagnostic(`offered: ${offered.join(', ')}`);
            assert.ok(offered.some(tool => /(^|[_.:-])greet$/.test(tool)), `offered: ${offered.join(', ')}\n${describeRun(run)}`);
        });

        it('failing command: the failure line reaches the model', { timeout: TEST_TIMEOUT_MS }, async t => {
            const run = await failed();
            const result = run.recording.results[0];
            assert.ok(result, `the model never got a tool result\n${describeRun(run)}`);
            t.diagnostic(`the model read: ${JSON.stringify(result.text.slice(0, 300))}`);
            assert.ok(result.text.includes(FAILURE_LINE), `the model read: ${result.text.slice(0, 3000)}`);
        });

        it('failing command: the output\'s last line reaches the model', { timeout: TEST_TIMEOUT_MS }, async () => {
            const run = await failed();
            const result = run.recording.results[0];
            assert.ok(result, `the model never got a tool result\n${describeRun(run)}`);
            assert.ok(result.text.includes(LAST_LINE), `the model read (last 600 characters): ${result.text.slice(-600)}`);
        });
    });
}
