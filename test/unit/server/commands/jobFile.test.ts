// The files of a command that may outlive its server: the job record a later server reads, the
// keeper's status file read back as an exit code or a signal, why there is none, and the keeper's
// plan (a program not found is spawned as itself, to fail the usual way).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { JobFiles, keptEnd, type JobFacts } from '../../../../server/src/commands/jobFile.js';
import { KEEPER_SCRIPT, posixKeptPlan } from '../../../../server/src/platform/keeper.js';
import { posixOnly } from '../../../support/platforms.js';

const dir = mkdtempSync(join(tmpdir(), 'job-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const signalName = (n: number) => (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, value]) => value === n)?.[0];

function job(taskId: string): JobFacts {
    const log = join(dir, `suite-${taskId}.log`);
    return { v: 1, taskId, worker: 'w', tool: 'suite', argv: ['npm', 'test'], pid: 1, start: 2, since: 2, marker: 'm', capture: `${log}.capture`, log, status: `${log}.status`, startedAt: 0, windowSeconds: 600 };
}

describe('job files', () => {
    it('records a job, reads it back by task id, lists it, and forgets it with the keeper files and its folder mark', () => {
        const files = new JobFiles(join(dir, 'jobs'));
        const facts = job('AbC-1_x');
        assert.equal(files.write(facts), true);
        assert.ok(readdirSync(dir).includes('suite-AbC-1_x.log.kept'), 'the log folder is marked');
        if (process.platform !== 'win32') {
            assert.equal(statSync(join(dir, 'jobs', 'AbC-1_x.json')).mode & 0o777, 0o600, 'readable by this user only');
            assert.equal(statSync(join(dir, 'jobs')).mode & 0o777, 0o700);
        }
        assert.deepEqual(files.read('AbC-1_x'), facts);
        assert.deepEqual(files.all().map(found => found.taskId), ['AbC-1_x']);
        writeFileSync(facts.status, '0\n');
        writeFileSync(`${facts.status}.held`, '123');
        files.remove(facts);
        assert.equal(files.read('AbC-1_x'), undefined);
        assert.deepEqual(readdirSync(dir).filter(name => name.startsWith('suite-AbC-1_x')), []);
    });

    it('reads no job from a file of another version or for another task', () => {
        const files = new JobFiles(join(dir, 'jobs-other'));
        files.write({ ...job('t1'), v: 2 as 1 });
        assert.equal(files.read('t1'), undefined);
        assert.equal(files.read('missing'), undefined);
    });

    it("reads the keeper's status as the command's exit code, or as the signal that killed it", () => {
        const status = join(dir, 'exit.status');
        writeFileSync(status, '3\n');
        assert.deepEqual(keptEnd(status, signalName), { code: 3, signal: null });
        writeFileSync(status, `${128 + constants.signals.SIGTERM}\n`);
        assert.deepEqual(keptEnd(status, signalName), { code: null, signal: 'SIGTERM' });
    });

    it('says why there is no status: stopped for want of a server, or unknown', () => {
        const status = join(dir, 'none.status');
        assert.deepEqual(keptEnd(status, signalName), { code: null, signal: null, unknown: true });
        writeFileSync(`${status}.abandoned`, '');
        assert.deepEqual(keptEnd(status, signalName), { code: null, signal: 'SIGTERM', abandoned: true });
    });
});

describe("the keeper's plan", posixOnly('executable bits and PATH lookup are POSIX; Windows has no keeper'), () => {
    const plan = { file: 'tool', args: ['--flag'], options: { detached: true } };

    it('runs a program found on PATH under sh with the status file and the window, its argv after them', () => {
        writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
        chmodSync(join(dir, 'tool'), 0o755);
        const kept = posixKeptPlan(plan, { PATH: `/nonexistent:${dir}` }, '/', '/s/status', 600);
        assert.deepEqual(kept, { file: '/bin/sh', args: ['-c', KEEPER_SCRIPT, '/s/status', '600', 'tool', '--flag'], options: { detached: true } });
    });

    it('leaves a program it cannot find to be spawned as itself (ENOENT, not a shell\'s exit 127)', () => {
        assert.equal(posixKeptPlan(plan, { PATH: '/nonexistent' }, '/', '/s/status', 600), undefined);
        assert.equal(posixKeptPlan({ ...plan, file: './tool' }, {}, '/nonexistent', '/s/status', 600), undefined);
        assert.ok(posixKeptPlan({ ...plan, file: './tool' }, {}, dir, '/s/status', 600), 'a relative path is found from the run\'s cwd');
    });
});
