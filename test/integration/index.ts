import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

/**
 * Suites only their own pass runs: vsix against the packaged extension, trust and trustMultiRoot in hosts with
 * workspace trust on, reload (it reloads its window) and readmeWalk each in a workbench of its own, bench on request.
 */
const ON_REQUEST = new Set(['vsix', 'trust', 'trustMultiRoot', 'reload', 'readmeWalk', 'bench']);

/**
 * How long before the pass's time limit (MCP_TASKS_PASS_DEADLINE, set by test/vscode-host/run.mjs) the suite
 * gives up: time for the report to reach the runner before it closes the workbench.
 */
const DEADLINE_MARGIN_MS = 45_000;

/**
 * After a failed test: close what it may have left open in front of the next suites. A prompt left open
 * stops the UI driver from serving any later request (it never acts over a prompt), and the Notifications
 * Center left open covers what later suites photograph. Each command is bounded: a cleanup must not hang.
 */
async function afterFailure(this: Mocha.Context): Promise<void> {
    if (this.currentTest?.state !== 'failed') {
        return;
    }
    this.timeout(60_000);
    for (const command of ['workbench.action.closeQuickOpen', 'notifications.hideList']) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
            Promise.resolve(vscode.commands.executeCommand(command)).catch((err: Error) => console.error(`[suite] after a failure, ${command} failed: ${err.message}`)),
            new Promise<void>(resolve => (timer = setTimeout(() => (console.error(`[suite] after a failure, ${command} did not return in 20 s`), resolve()), 20_000))),
        ]);
        clearTimeout(timer);
    }
}

/**
 * Entry point the test host loads (`extensionTestsPath`): runs every bundled *.test.js here,
 * or only those named in MCP_TASKS_SUITE (comma-separated basenames, e.g. "vsix").
 */
export function run(): Promise<void> {
    const only = (process.env.MCP_TASKS_SUITE ?? '').split(',').filter(Boolean);
    const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec', rootHooks: { afterEach: afterFailure } });
    for (const file of readdirSync(__dirname).sort()) {
        const name = file.replace(/\.test\.js$/, '');
        if (file.endsWith('.test.js') && (only.length === 0 ? !ON_REQUEST.has(name) : only.includes(name))) {
            mocha.addFile(join(__dirname, file));
        }
    }
    return new Promise((resolve, reject) => {
        const failed: string[] = [];
        const runner = mocha.run(failures => {
            clearTimeout(deadline);
            if (failures > 0) {
                reject(new Error(`${failures} integration test(s) failed`));
            } else {
                resolve();
            }
        });
        // Each failure in full as it happens: the spec reporter prints the details only once every suite has
        // run, and a pass stopped at its time limit (a later suite hung) never got there, so the log showed
        // which test failed first but not why.
        runner.on('fail', (test, err) => {
            failed.push(test.fullTitle());
            console.error(`[suite] FAILED: ${test.fullTitle()}\n${err.stack ?? err.message}`);
        });
        // Before the runner's own limit cuts everything off: say what was still running and what had failed, and end.
        const deadlineAt = Number(process.env.MCP_TASKS_PASS_DEADLINE);
        const deadline = Number.isFinite(deadlineAt) && deadlineAt > 0
            ? setTimeout(() => {
                  const current = runner.currentRunnable;
                  console.error(`[suite] the pass's time limit is near: stopping in ${current ? `"${current.fullTitle()}"` : 'no test'}; failed so far: ${failed.length === 0 ? 'none' : failed.map(title => `\n  ${title}`).join('')}`);
                  runner.abort();
                  reject(new Error(`stopped at the pass's time limit in ${current ? `"${current.fullTitle()}"` : 'no test'} (${failed.length} failed before)`));
              }, Math.max(0, deadlineAt - DEADLINE_MARGIN_MS - Date.now()))
            : undefined;
    });
}
