/**
 * The matrix for one host: install it (a failed install fails every test, saying why), then run
 * each scenario against the real CLI and assert on what the scripted model read.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ensureHost, type InstalledHost } from './hostInstall.js';
import { HOSTS, type HostName } from './hostList.js';
import { describeRun, type HostRun, RUN_TIMEOUT_MS, runOnHost } from './hostRun.js';
import { FAILURE_LINE, failingCommand, greet } from './scenarios.js';

export interface HostExpectations {
    /**
     * Set while the failing command's output does not reach this host's model on today's server:
     * the test then runs as a node:test `todo`, naming the known cause.
     */
    failingCommandTodo?: string;
}

// The install (first time: npm) plus a run, with room to spare.
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 300_000;

export function hostSuite(name: HostName, expectations: HostExpectations = {}): void {
    const host = HOSTS[name];
    describe(`${host.spec}`, { timeout: TEST_TIMEOUT_MS * 3 }, () => {
        let installed: InstalledHost | undefined;
        let installError: Error | undefined;
        let greetRun: Promise<HostRun> | undefined;

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

        // The greet run serves two tests: what the model read, and which tools it was offered.
        const greeted = () => (greetRun ??= runOnHost(installedHost(), greet));

        it('greet: the model reads the greeting', { timeout: TEST_TIMEOUT_MS }, async () => {
            const run = await greeted();
            const result = run.recording.results[0];
            assert.ok(result, `the model never got a tool result\n${describeRun(run)}`);
            assert.match(result.text, /Ada/, `the model read: ${result.text}`);
        });

        it('tools offered: the host offers our tools to the model', { timeout: TEST_TIMEOUT_MS }, async () => {
            const run = await greeted();
            const offered = run.recording.toolsOffered;
            assert.ok(offered.some(tool => /(^|[_.:-])greet$/.test(tool)), `offered: ${offered.join(', ')}\n${describeRun(run)}`);
        });

        it(
            'failing command: the failure line reaches the model',
            { timeout: TEST_TIMEOUT_MS, todo: expectations.failingCommandTodo },
            async () => {
                const run = await runOnHost(installedHost(), failingCommand);
                const result = run.recording.results[0];
                assert.ok(result, `the model never got a tool result\n${describeRun(run)}`);
                assert.ok(result.text.includes(FAILURE_LINE), `the model read: ${result.text.slice(0, 2000)}`);
            },
        );
    });
}
