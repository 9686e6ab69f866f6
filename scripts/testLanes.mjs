// `npm test`: the checks, then the test suites, in stages of lanes that run side by side. Each lane
// runs its phases in order; a stage starts once the one before it has passed. The checks
// (type-check; ESLint, then packaging and bundling) take one core each; then the suites run in two
// lanes: the real-VS-Code passes mostly wait on the UI and the others on processes, so together
// they keep both cores busy where one after the other each left one idle.
//
// Each phase writes to test-results/logs/<phase>.log, printed whole when the phase ends, so the
// lanes' output never interleaves. A failed phase does not stop the others of its stage (one run
// shows every failure) but no later stage starts; --bail stops everything at the first failure
// instead. SIGINT/SIGTERM end every phase with all it started (code-server, Chromium, servers,
// redis-server). The summary lists each phase with its result and seconds, then, for each failed
// phase, the lines of its log that name what failed: a long run's logs are printed whole as their
// phases end, and a CI page that keeps only the tail still shows which test failed and why. The
// exit code is 0 only when every phase passed.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killTree } from '../test/vscode-host/proc.mjs';

const root = resolve(import.meta.dirname, '..');

/**
 * What `npm test` runs. `npm run package` writes the production bundles into dist/ and packs them
 * into the .vsix; `node esbuild.mjs --tests` then writes the development bundles back (the ones
 * every suite runs) and the integration suite into out/. Both happen before the suites start, so
 * no suite's dist/server.js changes under it.
 */
export const PLAN = [
    [
        [{ name: 'typecheck', command: 'npm run typecheck' }],
        [
            { name: 'lint', command: 'npm run lint' },
            { name: 'package', command: 'npm run package' },
            { name: 'bundles', command: 'node esbuild.mjs --tests' },
        ],
    ],
    [
        [
            { name: 'unit', command: 'npm run test:unit' },
            { name: 'server', command: 'npm run test:server' },
            { name: 'bench', command: 'npm run test:bench' },
            { name: 'redis', command: 'npm run test:server:redis' },
            { name: 'e2e', command: 'npm run test:e2e' },
            { name: 'hosts', command: 'npm run test:hosts' },
            // The server as Node for Windows runs it, under Wine (.ci/run installs both): about 30 s.
            { name: 'windows', command: 'npm run test:windows' },
        ],
        [{ name: 'vscode', command: 'node test/integration/run.mjs' }],
    ],
];

/** At most this many lines of a failed phase's log are repeated under the summary. */
const RECAP_LINES = 60;

/**
 * The lines of a phase's log that say what failed: node:test's `not ok` lines with their error and
 * location, mocha's block after "N failing" (the VS Code suites), and the runners' FAILED lines.
 *
 * @param {string} log
 * @returns {string[]}
 */
export function failureLines(log) {
    const lines = log.split('\n');
    const picked = [];
    let mochaBlock = 0;
    for (const line of lines) {
        // mocha's summary line alone ("  2 failing", "[vscode]   2 failing"), not a line that quotes it.
        if (/^(?:\[[\w ]+\])?\s*\d+ failing\s*$/.test(line)) {
            mochaBlock = 25;
        }
        if (mochaBlock > 0) {
            mochaBlock--;
            picked.push(line);
        } else if (/^\s*not ok \d+/.test(line) || /^\s*(error|location): /.test(line) || /\bFAILED\b/.test(line)) {
            picked.push(line);
        }
    }
    return picked.length > RECAP_LINES ? [...picked.slice(0, RECAP_LINES), `… ${picked.length - RECAP_LINES} more lines in the log`] : picked;
}

/** How long a phase has to stop on SIGTERM (the VS Code runner saves a screenshot and stops its host) before SIGKILL. */
const STOP_GRACE_MS = 45_000;

/**
 * Runs `plan`: its stages in order, each stage's lanes side by side, each lane's phases in order.
 * Resolves with each phase's outcome (`passed`, `failed`, `stopped` when ended by a signal or
 * --bail, `skipped` when it never started). `signal` aborts the run: running phases are stopped
 * with all they started.
 *
 * @param {{name: string, command: string}[][][]} plan
 * @param {{ logDir: string, cwd?: string, bail?: boolean, signal?: AbortSignal, print?: (text: string) => void, graceMs?: number }} options
 */
export async function runLanes(plan, { logDir, cwd = root, bail = false, signal, print = text => process.stdout.write(text), graceMs = STOP_GRACE_MS }) {
    mkdirSync(logDir, { recursive: true });
    const started = Date.now();
    const results = new Map(plan.flat(2).map(phase => [phase.name, { name: phase.name, outcome: 'skipped', seconds: 0 }]));
    const running = new Set();
    let stopping = false;
    const stopAll = () => {
        stopping = true;
        return Promise.all([...running].map(child => killTree(child, graceMs)));
    };
    const onAbort = () => void stopAll();
    signal?.addEventListener('abort', onAbort, { once: true });

    const at = () => `${Math.round((Date.now() - started) / 1000)} s`;
    const runPhase = async phase => {
        if (stopping) {
            return false;
        }
        const log = resolve(logDir, `${phase.name}.log`);
        print(`[lanes] ${phase.name}: started at ${at()} (${phase.command}; log ${log})\n`);
        const out = createWriteStream(log);
        const phaseStarted = Date.now();
        // Its own process group, so that stopping it reaches npm, the runner and what they started.
        const child = spawn(phase.command, { cwd, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        running.add(child);
        child.stdout.pipe(out, { end: false });
        child.stderr.pipe(out, { end: false });
        const code = await new Promise(done => {
            child.on('error', () => done(1));
            child.on('close', (exitCode, exitSignal) => done(exitSignal ? 1 : exitCode));
        });
        running.delete(child);
        await new Promise(done => out.end(done));
        const seconds = Math.round((Date.now() - phaseStarted) / 1000);
        const outcome = code === 0 ? 'passed' : stopping ? 'stopped' : 'failed';
        results.set(phase.name, { name: phase.name, outcome, seconds, log });
        print(`\n===== ${phase.name}: ${phase.command} =====\n${readFileSync(log, 'utf8')}`);
        print(`[lanes] ${phase.name}: ${outcome} in ${seconds} s (at ${at()})\n\n`);
        if (outcome === 'failed' && bail) {
            await stopAll();
        }
        return outcome === 'passed';
    };

    for (const stage of plan) {
        const passed = await Promise.all(
            stage.map(async lane => {
                let all = true;
                for (const phase of lane) {
                    all = (await runPhase(phase)) && all;
                }
                return all;
            }),
        );
        if (!passed.every(Boolean)) {
            // A later stage reads what this one checked or wrote: it would fail for that reason alone.
            break;
        }
    }
    signal?.removeEventListener('abort', onAbort);

    const phases = [...results.values()];
    const width = Math.max(...phases.map(p => p.name.length));
    print(`[lanes] summary (${at()} in all):\n`);
    for (const phase of phases) {
        print(`[lanes]   ${phase.name.padEnd(width)}  ${phase.outcome.padEnd(7)}  ${String(phase.seconds).padStart(4)} s\n`);
    }
    for (const phase of phases.filter(p => p.outcome === 'failed')) {
        const lines = failureLines(readFileSync(phase.log, 'utf8'));
        print(`[lanes] what failed in ${phase.name} (the whole log: ${phase.log}):\n${lines.length ? lines.map(line => `[lanes] | ${line}\n`).join('') : '[lanes] | (no failing test named; the end of its log above says why)\n'}`);
    }
    return phases.map(({ log: _log, ...rest }) => rest);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const controller = new AbortController();
    let signalled;
    for (const name of ['SIGINT', 'SIGTERM']) {
        process.on(name, () => {
            if (!signalled) {
                signalled = name;
                process.stdout.write(`[lanes] ${name}: stopping every phase\n`);
                controller.abort();
            }
        });
    }
    // No top-level await: the suites load this file through a CommonJS transform.
    void runLanes(PLAN, { logDir: resolve(root, 'test-results/logs'), bail: process.argv.includes('--bail'), signal: controller.signal }).then(phases => {
        process.exitCode = signalled ? { SIGINT: 130, SIGTERM: 143 }[signalled] : phases.every(p => p.outcome === 'passed') ? 0 : 1;
    });
}
