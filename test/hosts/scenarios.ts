/** The scenarios every host runs: what the model is scripted to do, and the files they need. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoServerOptions } from '../../server/src/demo/options.js';
import type { RunOptions } from './hostRun.js';

/** The instructions our CLI serves (task tools on): what a host should hand the model. */
export const SERVER_INSTRUCTIONS = demoServerOptions().instructions;

/** Their first sentence, by which they are found in a model request whatever the host wraps them in. */
export const INSTRUCTIONS_MARKER = SERVER_INSTRUCTIONS.slice(0, SERVER_INSTRUCTIONS.indexOf('.') + 1);

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

/** The line read_output is asked to find, among 400 numbered ones (line 250 of the log). */
export const NEEDLE_LINE = 'step 250: needle found';

/** Prints 400 numbered lines, the 250th the needle, then exits 0. */
const MANY_LINES_SCRIPT = `
for (let i = 1; i <= 400; i++) {
    process.stdout.write(i === 250 ? ${JSON.stringify(NEEDLE_LINE)} + '\\n' : 'step ' + i + ': fine\\n');
}
`;

/**
 * A command started in the background and followed the way a model reads a terminal: start_,
 * get_task until it ends, then read_output with grep and context for the one line that matters.
 */
export const readOutput: RunOptions = {
    scenario: 'read-output',
    prompt: 'Run the steps in the background with start_run_steps, then find the needle in their output.',
    script: [
        { call: 'start_run_steps', args: {} },
        { call: 'get_task', args: previous => ({ task_id: taskIdIn(previous), wait_seconds: 20 }) },
        { call: 'read_output', args: previous => ({ task_id: followedTaskIn(previous), grep: 'needle', context: 1 }) },
        { text: 'Found it.' },
    ],
    serverFlags: ['--no-demo-tools'],
    prepare(dirs) {
        const script = join(dirs.root, 'many-lines.js');
        writeFileSync(script, MANY_LINES_SCRIPT);
        const commands = join(dirs.root, 'commands.json');
        writeFileSync(commands, JSON.stringify({ tools: [{ name: 'run_steps', description: 'Runs 400 steps, one line each.', command: [process.execPath, script] }] }));
        return ['--commands', commands];
    },
};

/** A plain call of a demo tool that runs only as a task (`taskSupport: 'required'`). */
export const requiredTaskPlain: RunOptions = {
    scenario: 'required-task-plain',
    prompt: 'Run the failing_job tool.',
    script: [{ call: 'failing_job', args: {} }, { text: 'It has to be started instead.' }],
};

/** The task id a get_task answer is about, in its text ("Task X (tool) …") or its structured content (escaped by Codex). */
export function followedTaskIn(text: string): string {
    const match = /task_id\\?":\\?"([\w-]+)|Task ([\w-]+) \(/.exec(text);
    return match?.[1] ?? match?.[2] ?? 'no-task-id-in-the-previous-result';
}

/** The task id a deferral answer or a start_ tool names; a placeholder the server refuses when none is there. */
export function taskIdIn(text: string): string {
    return /as task ([\w-]+)/.exec(text)?.[1] ?? 'no-task-id-in-the-previous-result';
}

/** The line the deferred command prints last: the model must read it in get_task's answer. */
export const BUILD_RESULT_LINE = 'build done: 42 artifacts';

/**
 * A command that outlives --defer-after 2s: one line, then 4 s of work (the child's own timer: it
 * is the work, nothing in the test waits on it), then the result line and exit 0.
 */
const SLOW_BUILD_SCRIPT = `
process.stdout.write('build started\\n');
setTimeout(() => {
    process.stdout.write(${JSON.stringify(BUILD_RESULT_LINE)} + '\\n');
    process.exit(0);
}, 4000);
`;

/**
 * A plain call deferred into a task, then followed to its end: the model reads the deferral
 * answer, takes the task id from it and calls get_task (waiting up to 20 s) for the result.
 */
export const deferral: RunOptions = {
    scenario: 'deferral',
    prompt: 'Build the project with the slow_build tool and tell me the result.',
    script: [
        { call: 'slow_build', args: {} },
        { call: 'get_task', args: previous => ({ task_id: taskIdIn(previous), wait_seconds: 20 }) },
        { text: 'The build is done.' },
    ],
    serverFlags: ['--no-demo-tools', '--defer-after', '2s'],
    prepare(dirs) {
        const script = join(dirs.root, 'slow-build.js');
        writeFileSync(script, SLOW_BUILD_SCRIPT);
        const commands = join(dirs.root, 'commands.json');
        writeFileSync(
            commands,
            JSON.stringify({
                tools: [{ name: 'slow_build', description: 'Builds the project (takes a few seconds).', command: [process.execPath, script] }],
            }),
        );
        return ['--commands', commands];
    },
};

/**
 * A task that asks the user (confirm_delete, started in the background), then get_task: what a
 * host does with the server's question when nobody is there to answer it. Only recorded. The
 * 5 s wait is the server's (get_task's wait_seconds), bounding a task that may never end.
 */
export const elicitation: RunOptions = {
    scenario: 'elicitation',
    prompt: 'Delete notes.txt with confirm_delete, in the background.',
    script: [
        { call: 'start_confirm_delete', args: { filename: 'notes.txt' } },
        { call: 'get_task', args: previous => ({ task_id: taskIdIn(previous), wait_seconds: 5 }) },
        { text: 'Asked.' },
    ],
};

/** What the wrapped server's one tool answers. */
export const LATE_HELLO = 'hello from the server that took 6 s to start';

/**
 * A stdio MCP server that takes 6 s to start (the wait is its own start-up, as a slow server's
 * would be), then answers initialize, tools/list (one tool, late_hello) and tools/call.
 */
const SLOW_SERVER_SCRIPT = `
const readline = require('node:readline');
setTimeout(() => {
    const send = message => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
    readline.createInterface({ input: process.stdin }).on('line', line => {
        const request = JSON.parse(line);
        if (request.method === 'initialize') {
            send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'late', version: '1.0.0' } } });
        } else if (request.method === 'tools/list') {
            send({ id: request.id, result: { tools: [{ name: 'late_hello', description: 'Says hello.', inputSchema: { type: 'object', properties: {} } }] } });
        } else if (request.method === 'tools/call') {
            send({ id: request.id, result: { content: [{ type: 'text', text: ${JSON.stringify(LATE_HELLO)} }] } });
        } else if (request.id !== undefined) {
            send({ id: request.id, error: { code: -32601, message: 'Method not found' } });
        }
    });
}, 6000);
`;

/** A command tool that waits 8 s: time for the wrapped server to come up while the model waits on something. */
const PAUSE_SCRIPT = `setTimeout(() => process.stdout.write('paused 8 s\\n'), 8000);`;

/**
 * The gateway in front of a server that takes 6 s to start: our own tools are there at once (the
 * first answer does not wait for it), the wrapped one arrives later (tools/list_changed). The model
 * first calls pause (8 s), then late_hello.
 */
export const slowWrapped: RunOptions = {
    scenario: 'slow-wrapped',
    prompt: 'Pause, then say hello with late_hello.',
    script: [{ call: 'pause', args: {} }, { call: 'late_hello', args: {} }, { text: 'Said hello.' }],
    serverFlags: ['--no-demo-tools'],
    prepare(dirs) {
        const slowServer = join(dirs.root, 'slow-server.js');
        writeFileSync(slowServer, SLOW_SERVER_SCRIPT);
        const pause = join(dirs.root, 'pause.js');
        writeFileSync(pause, PAUSE_SCRIPT);
        const commands = join(dirs.root, 'commands.json');
        writeFileSync(commands, JSON.stringify({ tools: [{ name: 'pause', description: 'Waits 8 seconds.', command: [process.execPath, pause] }] }));
        return ['--commands', commands, '--wrap', '--', process.execPath, slowServer];
    },
};
