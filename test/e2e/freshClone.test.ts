// The README's own commands, in the order written, on a fresh clone: `git clone` of this
// repository's HEAD (what is committed; uncommitted edits are not in it) into a temporary folder,
// then each fenced block marked `<!-- readme-test -->` runs with `bash -e -o pipefail` (a failing
// line fails the block), and the block marked `<!-- readme-test: server -->` runs until it prints
// its `{"url"}`, answers an initialize there, and is stopped with SIGINT, as Ctrl+C would.
// `npm ci` reads the npm cache this machine already has (`--prefer-offline`), as `.ci/run` leaves it:
// the clone has no node_modules, no dist/ and no .vsix of its own. About a minute in all.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readmeSteps, type ReadmeStep } from '../support/markdown.js';
import { Changes, waitUntil } from '../support/wait.js';

const ROOT = resolve(__dirname, '../..');
/** A block that takes longer than this is hung (npm ci with a warm cache takes about 30 s here). */
const STEP_LIMIT_MS = 240_000;

/** The state folder of the clone's user (the product's default data folder is under it). */
const STATE = mkdtempSync(join(tmpdir(), 'mcp-tasks-clone-state-'));

/** The clone's environment: this Node first on PATH, npm offline-first and quiet, no settings from an outer `npm test`. */
function cloneEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
        if (!/^(npm_|INIT_CWD$|MCP_TASKS_)/i.test(key)) {
            env[key] = value;
        }
    }
    return {
        ...env,
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        NO_COLOR: '1',
        // `npm start` serves on the default port 8080; the port's variable lets it share the machine with other runs.
        MCP_TASKS_PORT: '0',
        // The product keeps tasks in the user's state folder by default (tasks.db, the compile cache):
        // the clone's user is a new one, whose folder goes with the clone, not this machine's user's.
        XDG_STATE_HOME: STATE,
    };
}

interface Run {
    child: ChildProcess;
    stdout: string;
    stderr: string;
    /** Set once the shell has exited. */
    ended?: string;
    changes: Changes;
    exited: Promise<[number | null, NodeJS.Signals | null]>;
}

function start(step: ReadmeStep, cwd: string): Run {
    // Its own process group, so that SIGINT (or SIGKILL when hung) reaches npm and the server it starts.
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', step.script], { cwd, env: cloneEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Run = { child, stdout: '', stderr: '', changes: new Changes(), exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]> };
    child.stdout!.on('data', chunk => {
        run.stdout += String(chunk);
        run.changes.notify();
    });
    child.stderr!.on('data', chunk => (run.stderr += String(chunk)));
    const hung = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), STEP_LIMIT_MS);
    void run.exited.then(([code, signal]) => {
        clearTimeout(hung);
        run.ended = String(code ?? signal);
        run.changes.notify();
    });
    return run;
}

const tail = (run: Run) => `\n--- stdout ---\n${run.stdout.slice(-3000)}\n--- stderr ---\n${run.stderr.slice(-3000)}`;

async function runToEnd(step: ReadmeStep, cwd: string): Promise<void> {
    const run = start(step, cwd);
    const [code, signal] = await run.exited;
    assert.equal(code, 0, `README line ${step.line} failed (exit ${code ?? signal}):\n${step.script}${tail(run)}`);
}

async function serveThenStop(step: ReadmeStep, cwd: string): Promise<void> {
    const run = start(step, cwd);
    const url = await waitUntil(
        () => {
            const printed = /\{"url":"(http:\/\/127\.0\.0\.1:\d+\/mcp)"\}/.exec(run.stdout)?.[1];
            assert.ok(printed || run.ended === undefined, `README line ${step.line} ended (${run.ended}) before listening:${tail(run)}`);
            return printed;
        },
        `README line ${step.line} to print {"url"}`,
        { on: run.changes, timeoutMs: STEP_LIMIT_MS },
    );
    const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme', version: '1' } } }),
    });
    const body = await answer.text();
    assert.equal(answer.status, 200, body);
    assert.match(body, /"serverInfo"/);
    process.kill(-run.child.pid!, 'SIGINT');
    const [code, signal] = await run.exited;
    // bash and npm end by the signal itself; the server stops in order (it logs why) and exits 0.
    assert.ok(code === 0 || signal === 'SIGINT' || code === 130, `exit ${code ?? signal}${tail(run)}`);
    assert.match(run.stderr, /stopping \(SIGINT\)/, tail(run));
}

describe('README on a fresh clone', { timeout: 8 * STEP_LIMIT_MS }, () => {
    let clone = '';
    let steps: ReadmeStep[] = [];

    before(() => {
        clone = mkdtempSync(join(tmpdir(), 'mcp-tasks-clone-'));
        execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'pipe' });
        steps = readmeSteps(readFileSync(join(clone, 'README.md'), 'utf8'));
    });

    after(() => {
        rmSync(clone, { recursive: true, force: true });
        rmSync(STATE, { recursive: true, force: true });
    });

    it('runs the first-screen command (install and demo), then build, package and start, in that order, from a clone with nothing built', async () => {
        const scripts = steps.map(step => step.script).join('\n');
        for (const command of ['npm ci', 'npm run package', 'npm run demo', 'npm start']) {
            assert.ok(scripts.includes(command), `no README block marked for the test runs ${command}`);
        }
        for (const step of steps) {
            await (step.kind === 'server' ? serveThenStop(step, clone) : runToEnd(step, clone));
        }
        // The size the README quotes for the .vsix is the size npm run package wrote, within 10 %.
        const readme = readFileSync(join(clone, 'README.md'), 'utf8');
        const [, vsix, quotedKb] = /(mcp-tasks-[\d.]+\.vsix) \(about (\d+) KB\)/.exec(readme) ?? assert.fail('the README quotes no .vsix size');
        const kb = statSync(join(clone, vsix!)).size / 1024;
        assert.ok(Math.abs(kb - Number(quotedKb)) <= kb * 0.1, `the README says about ${quotedKb} KB; ${vsix} is ${kb.toFixed(0)} KB`);
    });
});
