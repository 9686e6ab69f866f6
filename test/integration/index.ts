import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

/**
 * Suites only their own pass runs: vsix against the packaged extension, trust and trustMultiRoot in hosts with
 * workspace trust on, reload (it reloads its window) and readmeWalk each in a workbench of its own, bench on request.
 */
const ON_REQUEST = new Set(['vsix', 'trust', 'trustMultiRoot', 'reload', 'readmeWalk', 'bench']);

/**
 * Entry point the test host loads (`extensionTestsPath`): runs every bundled *.test.js here,
 * or only those named in MCP_TASKS_SUITE (comma-separated basenames, e.g. "vsix").
 */
export function run(): Promise<void> {
    const only = (process.env.MCP_TASKS_SUITE ?? '').split(',').filter(Boolean);
    const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec' });
    for (const file of readdirSync(__dirname).sort()) {
        const name = file.replace(/\.test\.js$/, '');
        if (file.endsWith('.test.js') && (only.length === 0 ? !ON_REQUEST.has(name) : only.includes(name))) {
            mocha.addFile(join(__dirname, file));
        }
    }
    return new Promise((resolve, reject) => {
        mocha.run(failures => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
    });
}
