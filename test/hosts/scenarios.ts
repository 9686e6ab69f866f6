/** The scenarios every host runs: what the model is scripted to do, and the files they need. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOptions } from './hostRun.js';

export const greet: RunOptions = {
    scenario: 'greet',
    prompt: 'Greet Ada with the greet tool.',
    script: [{ call: 'greet', args: { name: 'Ada' } }, { text: 'Greeted Ada.' }],
};

/** The line a model must read to know what failed. */
export const FAILURE_LINE = 'not ok 100 - adds numbers';

/** The program's last line: the digest's "Last lines" end with it when no output was lost. */
export const LAST_LINE = 'ok 507 - case 507';

/**
 * A test run like a real one: 507 lines of TAP, the failure at line 100 with its assertion
 * message, then `process.exit(1)` right after the last write, which is where output written to a
 * socket asynchronously is lost.
 */
const FAILING_SCRIPT = `
const lines = [];
for (let n = 1; n <= 507; n++) {
    if (n === 100) {
        lines.push(${JSON.stringify(FAILURE_LINE)});
    } else if (n === 101) {
        lines.push('  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 5 !== 4');
    } else {
        lines.push('ok ' + n + ' - case ' + n);
    }
}
for (const line of lines) {
    process.stdout.write(line + '\\n');
}
process.exit(1);
`;

export const failingCommand: RunOptions = {
    scenario: 'failing-command',
    prompt: 'Run the tests with the run_tests tool and tell me what failed.',
    script: [{ call: 'run_tests', args: {} }, { text: 'The tests ran.' }],
    serverFlags: ['--no-demo-tools'],
    prepare(dirs) {
        const script = join(dirs.root, 'failing-tests.js');
        writeFileSync(script, FAILING_SCRIPT);
        const commands = join(dirs.root, 'commands.json');
        writeFileSync(
            commands,
            JSON.stringify({
                tools: [{ name: 'run_tests', description: 'Runs the test suite.', command: [process.execPath, script] }],
            }),
        );
        return ['--commands', commands];
    },
};
