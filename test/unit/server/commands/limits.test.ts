/** Lifetimes and limits of command runs: logs that go with their task and a size cap, concurrency and whenBusy, the process cap, the commands file fields. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CommandLimits, Slots } from '../../../../server/src/commands/limits.js';
import { CommandLogs } from '../../../../server/src/commands/logs.js';
import { SHRUNK_LOG_BYTES } from '../../../../server/src/commands/logShrink.js';
import { durationText } from '../../../../server/src/commands/runOptions.js';
import { parseCommandsFile, type CommandSpec } from '../../../../server/src/commands/spec.js';
import { textResult, type CallToolResult, type ToolContext } from '../../../../server/src/tools/types.js';
import { waitUntil } from '../../../support/wait.js';
import { ManualClock } from '../../../support/manualClock.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-limits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function spec(fields: object): CommandSpec {
    const text = JSON.stringify({ tools: [{ name: 'test', description: 'Runs tests.', command: ['node', '--test'], ...fields }] });
    return parseCommandsFile(text, join(dir, 'commands.json'))[0]!;
}

/** Just enough of a tool context for the limits: a signal, a task id and progress messages. */
function context(taskId: string): ToolContext & { controller: AbortController; messages: string[] } {
    const controller = new AbortController();
    const messages: string[] = [];
    return { controller, messages, taskId, signal: controller.signal, progress: (_p: number, _t?: number, message?: string) => void messages.push(message ?? '') } as unknown as ToolContext & {
        controller: AbortController;
        messages: string[];
    };
}

/** A run that ends when the test says. */
function pending(): { promise: Promise<CallToolResult>; end(text: string): void; started: boolean } {
    let end!: (text: string) => void;
    const promise = new Promise<CallToolResult>(resolve => (end = text => resolve(textResult(text))));
    return { promise, end, started: false };
}

const noFollow = () => undefined;

describe('command logs', () => {
    it('a log is deleted when its task expires (its TTL from the end), not before', async () => {
        const clock = new ManualClock();
        const logs = new CommandLogs({ dir: join(dir, 'ttl'), clock });
        const entry = logs.create('test', 'task-1');
        writeFileSync(entry.path, 'hello\n');
        await clock.tick(10_000);
        logs.ended(entry, 60_000);
        await clock.tick(59_000);
        assert.ok(existsSync(entry.path), 'kept within the TTL');
        assert.equal(logs.find('task-1'), entry);
        await clock.tick(1_000);
        assert.ok(!existsSync(entry.path), 'gone when the task expires');
        assert.equal(logs.find('task-1'), undefined);
        assert.match(entry.gone ?? '', /expired/);
        logs.close();
        assert.ok(existsSync(join(dir, 'ttl')), "a folder the user chose stays");
    });

    it('over the size cap the oldest ended logs are cut to their first and last lines, never deleted before their task expires; running ones stay', async () => {
        const clock = new ManualClock();
        const logs = new CommandLogs({ dir: join(dir, 'cap'), clock, maxBytes: 600_000 });
        const lines = (mark: string) => Array.from({ length: 30_000 }, (_, i) => `${mark} ${i + 1}\n`).join('');
        const running = logs.create('test', 'running');
        writeFileSync(running.path, lines('r'));
        const old = logs.create('test', 'old');
        writeFileSync(old.path, lines('o'));
        logs.ended(old, 3_600_000);
        const newer = logs.create('test', 'newer');
        writeFileSync(newer.path, lines('n'));
        const whole = statSync(newer.path).size;
        logs.ended(newer, 7_200_000);
        await logs.settled();
        assert.equal(logs.find('old'), old, 'its task still finds it');
        assert.equal(old.gone, undefined);
        assert.ok(statSync(old.path).size <= SHRUNK_LOG_BYTES, 'the oldest ended log was cut down');
        const text = readFileSync(old.path, 'utf8');
        assert.ok(text.startsWith('o 1\n') && text.endsWith('o 30000\n'), 'its first and last lines stay');
        assert.match(text, /\[mcp-tasks\] \d+ line\(s\) .* left out here: the command logs passed 585\.9 KB/);
        assert.equal(statSync(newer.path).size, whole, 'the newer one is whole');
        assert.equal(statSync(running.path).size, whole, 'a running one is never cut here');
        await clock.tick(3_600_000);
        assert.ok(!existsSync(old.path), 'gone when its task expires');
        assert.match(old.gone ?? '', /expired/);
        logs.close();
    });

    it('a folder the server made is removed on close, with its logs', () => {
        const logs = new CommandLogs({ clock: new ManualClock() });
        writeFileSync(logs.create('test').path, 'x');
        assert.match(logs.dir, /mcp-tasks-commands-/);
        logs.close();
        assert.ok(!existsSync(logs.dir));
    });
});

describe('command concurrency', () => {
    it('slots: first come, first served; a cancelled waiter leaves the line', async () => {
        const slots = new Slots(1);
        await slots.take(new AbortController().signal);
        const order: string[] = [];
        const quitter = new AbortController();
        const a = slots.take(new AbortController().signal).then(() => order.push('a'));
        const b = slots.take(quitter.signal).then(
            () => order.push('b'),
            () => order.push('b left'),
        );
        const c = slots.take(new AbortController().signal).then(() => order.push('c'));
        quitter.abort(new Error('cancelled'));
        await b;
        slots.release();
        await a;
        slots.release();
        await c;
        assert.deepEqual(order, ['b left', 'a', 'c']);
    });

    it('whenBusy "reject" refuses a call beyond the concurrency, saying so', async () => {
        const limits = new CommandLimits();
        const s = spec({ concurrency: 1, whenBusy: 'reject' });
        const first = pending();
        const running = limits.run(s, ['node'], context('t1'), () => first.promise, noFollow);
        const refused = await limits.run(s, ['node'], context('t2'), () => Promise.resolve(textResult('ran')), noFollow);
        assert.equal(refused.isError, true);
        assert.match((refused.content[0] as { text: string }).text, /^Not run: test is busy \(1 run\(s\) at once/);
        first.end('done');
        await running;
        const after = await limits.run(s, ['node'], context('t3'), () => Promise.resolve(textResult('ran')), noFollow);
        assert.equal((after.content[0] as { text: string }).text, 'ran', 'runs again once the first has ended');
    });

    it('whenBusy "queue" waits its turn, telling the client', async () => {
        const limits = new CommandLimits();
        const s = spec({ concurrency: 1, whenBusy: 'queue' });
        const first = pending();
        let secondStarted = false;
        const one = limits.run(s, ['node'], context('t1'), () => first.promise, noFollow);
        const ctx = context('t2');
        const two = limits.run(s, ['node'], ctx, () => ((secondStarted = true), Promise.resolve(textResult('second'))), noFollow);
        assert.match(await waitUntil(() => ctx.messages[0], 'the queued message'), /^Queued: test runs at most 1 at once; 1 waiting/);
        assert.equal(secondStarted, false);
        first.end('first');
        assert.equal(((await two).content[0] as { text: string }).text, 'second');
        await one;
    });

    it('whenBusy "attach" (the default): an identical call follows the running job; a different one runs', async () => {
        const limits = new CommandLimits();
        const s = spec({});
        const first = pending();
        let runs = 0;
        const followed: string[] = [];
        const leader = limits.run(s, ['node', 'a'], context('t1'), opened => (runs++, opened({ path: '/tmp/a.log' } as never), first.promise), noFollow);
        const follower = limits.run(s, ['node', 'a'], context('t2'), () => (runs++, Promise.resolve(textResult('own'))), () => followed.push('log'));
        const other = await limits.run(s, ['node', 'b'], context('t3'), () => (runs++, Promise.resolve(textResult('other'))), noFollow);
        assert.equal((other.content[0] as { text: string }).text, 'other');
        first.end('exit 0 in 1.0 s: node a');
        assert.equal(((await leader).content[0] as { text: string }).text, 'exit 0 in 1.0 s: node a');
        assert.match(((await follower).content[0] as { text: string }).text, /^exit 0 in 1\.0 s: node a\n\(Shared: an identical call was already running as task t1; this is its result\.\)$/);
        assert.equal(runs, 2, 'the identical call started nothing');
        assert.deepEqual(followed, ['log'], "the follower reads the job's log");
    });

    it('a follower that is cancelled stops following; the job goes on', async () => {
        const limits = new CommandLimits();
        const s = spec({ whenBusy: 'attach' });
        const first = pending();
        const leader = limits.run(s, ['node'], context('t1'), () => first.promise, noFollow);
        const ctx = context('t2');
        const follower = limits.run(s, ['node'], ctx, () => Promise.resolve(textResult('own')), noFollow);
        ctx.controller.abort(new Error('cancelled'));
        await assert.rejects(follower, /cancelled/);
        first.end('done');
        assert.equal(((await leader).content[0] as { text: string }).text, 'done');
    });

    it('the server-wide process cap queues runs of every command', async () => {
        const limits = new CommandLimits(1);
        const first = pending();
        const one = limits.run(spec({}), ['a'], context('t1'), () => first.promise, noFollow);
        const ctx = context('t2');
        const two = limits.run(spec({ name: 'other' }), ['b'], ctx, () => Promise.resolve(textResult('b')), noFollow);
        assert.match(await waitUntil(() => ctx.messages[0], 'the queued message'), /at most 1 commands at once \(--max-command-processes\)/);
        first.end('a');
        await one;
        assert.equal(((await two).content[0] as { text: string }).text, 'b');
    });
});

describe('commands file: run options', () => {
    it('reads failurePattern, expectedDurationMs, concurrency, whenBusy and maxUnpolledMs', () => {
        const s = spec({ failurePattern: '^BROKEN', expectedDurationMs: 90_000, concurrency: 2, whenBusy: 'reject', maxUnpolledMs: 60_000 });
        assert.deepEqual([s.failurePattern?.source, s.expectedDurationMs, s.concurrency, s.whenBusy, s.maxUnpolledMs], ['^BROKEN', 90_000, 2, 'reject', 60_000]);
        assert.equal(spec({}).whenBusy, 'attach', 'a retried call follows the run it repeats');
        assert.equal(spec({ whenBusy: 'queue' }).whenBusy, 'queue', 'every call its own run, with no concurrency too');
    });

    it('refuses bad values, naming the entry and the field', () => {
        const bad: [object, RegExp][] = [
            [{ failurePattern: '(' }, /tools\[0\] \(test\): failurePattern: Invalid regular expression/],
            [{ concurrency: 1.5 }, /concurrency: must be a whole number ≥ 1/],
            [{ concurrency: 1, whenBusy: 'later' }, /whenBusy: must be one of reject, queue, attach/],
            [{ whenBusy: 'reject' }, /whenBusy: "reject" needs a concurrency/],
            [{ maxUnpolledMs: -1 }, /maxUnpolledMs: must be a positive number of milliseconds/],
            [{ expectedDurationMs: '1m' }, /expectedDurationMs: must be a positive number/],
        ];
        for (const [fields, message] of bad) {
            assert.throws(() => spec(fields), message, JSON.stringify(fields));
        }
    });

    it('says the expected duration in words', () => {
        assert.deepEqual([durationText(5000), durationText(90_000), durationText(30 * 60_000), durationText(3 * 3_600_000)], ['about 5 s', 'about 1.5 min', 'about 30 min', 'about 3 h']);
    });
});
