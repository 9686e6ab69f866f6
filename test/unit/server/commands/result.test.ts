/** A command run's result for every way it ends: the same digest, a status, and a short status message for failures. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { commandResult, type RunFacts } from '../../../../server/src/commands/result.js';
import { parseCommandsFile } from '../../../../server/src/commands/spec.js';
import { UNCONFIRMED_NOTE } from '../../../../server/src/commands/stopper.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-result-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const logPath = join(dir, 'run.log');
writeFileSync(logPath, 'starting\nnot ok 1 - parses\n  expected 1\nsummary: 1 failed\n');
const spec = parseCommandsFile(JSON.stringify({ tools: [{ name: 'test', description: 'Tests.', command: ['npm', 'test'], timeoutMs: 30_000 }] }), join(dir, 'c.json'))[0]!;

function facts(over: Partial<RunFacts>): RunFacts {
    return { spec, argv: ['npm', 'test'], end: { exit: { code: 0, signal: null } }, timedOut: false, stopped: false, durationMs: 1234, logPath, taskId: 't1', tail: () => '', ...over };
}

describe('command result', () => {
    const cases: [string, Partial<RunFacts>, string, RegExp, boolean][] = [
        ['exit 0', {}, 'completed', /^exit 0 in 1\.2 s: npm test\n/, false],
        ['exit 1', { end: { exit: { code: 1, signal: null } } }, 'failed', /^exit 1 after 1\.2 s: npm test\n/, true],
        ['killed', { end: { exit: { code: null, signal: 'SIGKILL' } } }, 'failed', /^killed by SIGKILL after 1\.2 s: npm test\n/, true],
        ['timed out', { timedOut: true, end: { exit: { code: null, signal: 'SIGTERM' } } }, 'timed_out', /^timed out after 30 s \(stopped with SIGTERM\): npm test\n/, true],
        ['cancelled', { stopped: true, end: { exit: { code: null, signal: 'SIGTERM' } } }, 'cancelled', /^Stopped after 1\.2 s \(SIGTERM\): npm test\n/, true],
        [
            'cancelled, the rest unconfirmed',
            { stopped: true, end: { exit: { code: null, signal: 'SIGTERM' }, unconfirmed: UNCONFIRMED_NOTE } },
            'cancelled',
            /^Stopped, but could not confirm that the processes it started ended: this system's process list could not be read, after 1\.2 s \(SIGTERM\): npm test\n/,
            true,
        ],
        ['not started', { end: { failure: Object.assign(new Error('spawn npm ENOENT'), { code: 'ENOENT' }) } }, 'not_started', /^not found: npm \(from /, true],
    ];
    for (const [name, over, status, headline, failed] of cases) {
        it(`${name}: the digest is the first block and the summary, the status says how it ended`, async () => {
            const { result, conclusion } = await commandResult(facts(over));
            const text = (result.content[0] as { text: string }).text;
            const data = result.structuredContent as { status: string; summary: string; logLines: number };
            assert.match(text, headline);
            assert.match(text, /2\| not ok 1 - parses/, 'every end shows the failing line');
            assert.equal(data.summary, text);
            assert.equal(data.status, status);
            assert.equal(result.isError === true, failed);
            assert.equal(data.logLines, 4);
            if (failed && status !== 'cancelled') {
                assert.match(conclusion!, headline, 'the status message: the headline,');
                assert.match(conclusion!, /\n1 failing test:\n✖ parses\nTask t1\. Full log: .*run\.log$/, 'the failing test, the task and the log');
            } else {
                assert.equal(conclusion, undefined, 'a success or a cancel keeps its usual status message');
            }
        });
    }

    it('a log that cannot be read falls back to the last lines kept in memory', async () => {
        const { result } = await commandResult(facts({ logPath: join(dir, 'gone.log'), tail: () => 'Error: from memory\n' }));
        assert.match((result.content[0] as { text: string }).text, /the log could not be read: .*ENOENT[\s\S]*Error: from memory/);
    });
});
