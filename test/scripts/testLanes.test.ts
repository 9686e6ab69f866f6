/**
 * scripts/testLanes.mjs, the runner behind `npm test`'s phases, on small stand-in phases: the lanes
 * run side by side, each phase's output comes out whole, one failure does not stop the others
 * (--bail does), a failed preparation skips the lanes, and stopping the run ends what every phase
 * started, detached grandchildren included.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { failureLines, runLanes, PLAN, type Phase } from '../../scripts/testLanes.mjs';
import { processRunning } from '../../server/src/platform/index.js';
import { waitUntil } from '../support/wait.js';

let dir: string;

/** A phase running `source` as an ES module in its own file (no shell quoting); `dir` is its first argument. */
function phase(name: string, source: string): Phase {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, source);
    return { name, command: `"${process.execPath}" "${file}" "${dir}"` };
}

/** A phase that marks itself started, then ends (with `code`) once `other` has marked itself started too. */
function meets(name: string, other: string, code = 0): Phase {
    return phase(
        name,
        `import { existsSync, watch, writeFileSync } from 'node:fs';
        import { join } from 'node:path';
        const dir = process.argv[2];
        const done = () => { console.log('${name} met ${other}'); process.exit(${code}); };
        const watcher = watch(dir, () => existsSync(join(dir, '${other}.started')) && done());
        writeFileSync(join(dir, '${name}.started'), '');
        if (existsSync(join(dir, '${other}.started'))) done();
        setTimeout(() => { console.log('${name} never met ${other}'); watcher.close(); process.exit(3); }, 30_000);`,
    );
}

const says = (name: string, lines: string[], code = 0) => phase(name, `${lines.map(line => `console.log(${JSON.stringify(line)});`).join('\n')}\nprocess.exit(${code});`);

/** A phase that starts a detached grandchild (its own process group, as code-server is), notes its pid, and waits. */
const parent = (name: string) =>
    phase(
        name,
        `import { spawn } from 'node:child_process';
        import { writeFileSync } from 'node:fs';
        import { join } from 'node:path';
        const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
        writeFileSync(join(process.argv[2], '${name}.pid'), String(child.pid));
        writeFileSync(join(process.argv[2], '${name}.started'), '');
        setInterval(() => {}, 1000);`,
    );

async function run(plan: Parameters<typeof runLanes>[0], options: { bail?: boolean; signal?: AbortSignal } = {}) {
    let printed = '';
    const phases = await runLanes(plan, { logDir: join(dir, 'logs'), print: text => (printed += text), graceMs: 2000, ...options });
    return { printed, outcome: Object.fromEntries(phases.map(p => [p.name, p.outcome])) };
}

describe('npm test lanes (scripts/testLanes.mjs)', () => {
    before(() => {
        dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-lanes-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('runs the lanes side by side, stage after stage, and prints each phase whole with a summary', async () => {
        const { printed, outcome } = await run([
            [[says('prep', ['prepared'])]],
            // Each of these ends only once the other has started: run one after the other, they would not end.
            [
                [meets('left', 'right'), says('left2', ['left2 line 1', 'left2 line 2'])],
                [meets('right', 'left')],
            ],
        ]);
        assert.deepEqual(outcome, { prep: 'passed', left: 'passed', left2: 'passed', right: 'passed' });
        assert.ok(printed.indexOf('[lanes] prep: passed') < printed.indexOf('[lanes] left: started'), 'the second stage starts after the first');
        assert.match(printed, /===== left2: .*=====\nleft2 line 1\nleft2 line 2\n\[lanes\] left2: passed in \d+ s/);
        assert.equal(readFileSync(join(dir, 'logs', 'left.log'), 'utf8'), 'left met right\n');
        assert.match(printed, /\[lanes\] summary \(\d+ s in all\):\n\[lanes\] {3}prep {3}passed +\d+ s\n\[lanes\] {3}left {3}passed/);
    });

    it('goes on after a failure, and says which phase failed', async () => {
        const { printed, outcome } = await run([[[says('bad', ['broken'], 1), says('after', ['still ran'])], [says('other', ['fine'])]]]);
        assert.deepEqual(outcome, { bad: 'failed', after: 'passed', other: 'passed' });
        assert.match(printed, /\[lanes\] {3}bad {4}failed/);
        assert.match(printed, /\[lanes\] what failed in bad \(the whole log: .*bad\.log\):\n\[lanes\] \| \(no failing test named/);
    });

    it("under the summary, repeats what a failed phase's log says failed (node:test, mocha, the runners)", async () => {
        const tap = ['TAP version 13', '    ok 1 - fine', '    not ok 2 - answers the question', '      ---', "      location: '/x/a.test.ts:2:5'", "      error: 'timed out waiting for tasks/update'", '      stack: |-', '        at x', 'not ok 1 - the suite'];
        const { printed } = await run([[[says('tapfail', tap, 1), says('quiet', ['ok 1 - quiet'])]]]);
        const recap = printed.slice(printed.indexOf('[lanes] what failed in tapfail'));
        assert.match(recap, /\| {5}not ok 2 - answers the question\n\[lanes\] \| {7}location: '\/x\/a.test.ts:2:5'\n\[lanes\] \| {7}error: 'timed out waiting for tasks\/update'\n\[lanes\] \| not ok 1 - the suite\n/);
        assert.doesNotMatch(recap, /ok 1 - fine|stack|quiet/);
        const mocha = ['[vscode]   9 passing (40s)', '[vscode]   1 failing', '[vscode]   1) Tasks view', '[vscode]        answers with Enter:', '[vscode]      AssertionError: expected 1', '[integration] dev: FAILED (exit 1) in 300 s'];
        assert.deepEqual(failureLines(['[vscode]   ✔ fine', ...mocha].join('\n')), mocha.slice(1));
        assert.deepEqual(failureLines('# \\#   1 failing test:\n#   ✖ a test that failed on purpose\nok 3 - fine'), [], 'a line quoting a failure count opens no block');
        const many = failureLines(Array.from({ length: 100 }, (_, i) => `not ok ${i} - t${i}`).join('\n'));
        assert.equal(many.length, 61);
        assert.match(many.at(-1)!, /40 more lines in the log/);
    });

    it('with bail, stops the other lane at the first failure and starts nothing more', async () => {
        const { outcome } = await run([[[meets('fails', 'waits', 1), says('next', ['never'])], [parent('waits'), says('later', ['never'])]]], { bail: true });
        assert.deepEqual(outcome, { fails: 'failed', next: 'skipped', waits: 'stopped', later: 'skipped' });
    });

    it('starts no later stage once a phase has failed', async () => {
        const { outcome } = await run([[[says('pack', ['no .vsix'], 2), says('build', ['built'])]], [[says('suite', ['never'])]]]);
        assert.deepEqual(outcome, { pack: 'failed', build: 'passed', suite: 'skipped' });
    });

    it('stopped (SIGINT, SIGTERM), ends every running phase with what it started, detached grandchildren too', async () => {
        const controller = new AbortController();
        const running = run([[[parent('one')], [parent('two')]]], { signal: controller.signal });
        const pids = await waitUntil(
            () => (['one', 'two'].every(name => existsSync(join(dir, `${name}.pid`))) ? ['one', 'two'].map(name => Number(readFileSync(join(dir, `${name}.pid`), 'utf8'))) : undefined),
            'both phases to start their grandchild',
        );
        assert.ok(pids.every(processRunning));
        controller.abort();
        const { outcome } = await running;
        assert.deepEqual(outcome, { one: 'stopped', two: 'stopped' });
        await waitUntil(() => !pids.some(processRunning), 'the grandchildren to be gone');
    });

    it('is what npm test runs: the checks, packaging and bundling, then every test script in a lane', () => {
        const scripts = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
        assert.equal(scripts.test, 'node scripts/testLanes.mjs');
        const [checks, suites] = PLAN.map(stage => stage.flat().map(p => p.command));
        assert.equal(PLAN.length, 2);
        assert.deepEqual(checks, ['npm run typecheck', 'npm run lint', 'npm run package', 'node esbuild.mjs --tests']);
        for (const name of Object.keys(scripts).filter(name => /^test:/.test(name) && !['test:integration', 'test:electron'].includes(name))) {
            assert.ok(suites!.includes(`npm run ${name}`), `${name} runs in a lane`);
        }
        // test:integration is the packaging and bundling, then this.
        assert.equal(scripts['test:integration'], 'npm run package && node esbuild.mjs --tests && node test/integration/run.mjs');
        assert.ok(suites!.includes('node test/integration/run.mjs'));
    });
});
