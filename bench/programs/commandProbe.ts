// In-process probe of command tools (server/src, bundled like dist/server.js), two loads:
//  - flood: one command writes FLOOD_MB of 100-byte lines to stdout as fast as it can. Measured in
//    this (the server's) process: RSS growth over the run, the event loop's delay p99 beyond its
//    sampling interval, progress notifications that reach the client per second, and whether the
//    log file holds every byte.
//  - cancel: CANCEL_TASKS commands, each with a grandchild, cancelled at once: each tasks/cancel's
//    time (it answers once the process group is gone), against the kill grace period, and any
//    process left alive afterwards.
// With `secret` the flood's entry sets a secret in its env, so every line goes through redaction.
// With `limit=BYTES` the logs are limited to BYTES (--commands-log-limit), so the running log's
// middle is left out as the flood goes; the log is then checked for being within the limit with
// its first and last lines and the marker, instead of for every byte.
// Usage: node commandProbe.js FLOOD_MB CANCEL_TASKS [secret] [limit=BYTES]   (prints one JSON line)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { processRunning } from '../../server/src/platform/index.js';
import { commandTool } from '../../server/src/commands/tool.js';
import { CommandLimits } from '../../server/src/commands/limits.js';
import { CommandLogs } from '../../server/src/commands/logs.js';
import { DEFAULT_KILL_GRACE_MS, parseCommandsFile } from '../../server/src/commands/spec.js';
import { systemClock } from '../../server/src/index.js';
import { cancelAll, inProcessServer } from './inProcess.js';

const LINE_BYTES = 100;
const LOOP_RESOLUTION_MS = 5;

const FLOOD_JS = `
const lines = Number(process.argv[1]);
const line = 'x'.repeat(${LINE_BYTES - 1}) + '\\n';
let left = lines;
const go = () => {
    while (left > 0) {
        const n = Math.min(655, left);
        left -= n;
        if (!process.stdout.write(line.repeat(n))) {
            process.stdout.once('drain', go);
            return;
        }
    }
};
go();`;

const TREE_JS = `
const { spawn } = require('node:child_process');
const kid = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1 << 30)'], { stdio: 'ignore' });
process.stdout.write('pids ' + JSON.stringify([process.pid, kid.pid]) + '\\n');
setInterval(() => undefined, 1 << 30);`;

/** A flood's log under a limit: its first and last lines (100 bytes each, FLOOD_JS) with one marker between. */
function boundedAsExpected(log: string): boolean {
    const lines = log.split('\n');
    const line = 'x'.repeat(LINE_BYTES - 1);
    return lines[0] === line && lines.at(-2) === line && lines.at(-1) === '' && lines.filter(entry => entry.startsWith('[mcp-tasks]')).length === 1;
}

function percentile(samples: number[], p: number): number {
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
    // As server/src/cli.ts sets it: the server process's memory behaves as the CLI's does.
    setFlagsFromString('--heap-growing-percent=50');
    const [floodMb, cancelTasks] = process.argv.slice(2, 4).map(Number) as [number, number];
    const options = process.argv.slice(4);
    const env = options.includes('secret') ? { API_TOKEN: 'not-in-the-output-7f3a' } : {};
    const limitOption = options.find(option => option.startsWith('limit='));
    const logLimit = limitOption === undefined ? undefined : Number(limitOption.slice('limit='.length));
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-command-probe-'));
    const logDir = join(dir, 'logs');
    const file = join(dir, 'commands.json');
    writeFileSync(
        file,
        JSON.stringify({
            tools: [
                { name: 'flood', description: 'Writes lines as fast as it can.', command: [process.execPath, '-e', FLOOD_JS, '{lines}'], parameters: { lines: { type: 'number', description: 'How many' } }, env },
                // Many identical runs at once: each its own (the default, attach, would make them one).
                { name: 'tree', description: 'Starts a grandchild and waits.', command: [process.execPath, '-e', TREE_JS], whenBusy: 'queue' },
            ],
        }),
    );
    mkdirSync(logDir);
    // No cap on processes: the cancel load starts all its commands at once.
    const deps = { clock: systemClock, logs: new CommandLogs({ dir: logDir, clock: systemClock, maxBytes: logLimit }), limits: new CommandLimits(Infinity), env: process.env };
    const tools = parseCommandsFile(readFileSync(file, 'utf8'), file).map(spec => commandTool(spec, deps));

    // The client's side of stdout: every frame the server sends on its own (notifications).
    const progressAt: number[] = [];
    const output = new Writable({
        write(chunk: Buffer, _encoding, done) {
            const text = chunk.toString('utf8');
            let at = text.indexOf('"notifications/progress"');
            while (at >= 0) {
                progressAt.push(performance.now());
                at = text.indexOf('"notifications/progress"', at + 1);
            }
            done();
        },
    });
    const { core, call } = await inProcessServer(tools, output);

    // Flood.
    const lines = Math.round((floodMb * 1024 * 1024) / LINE_BYTES);
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    const rssBefore = process.memoryUsage().rss;
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 20);
    loop.enable();
    const t0 = performance.now();
    const created = await call('tools/call', { name: 'flood', arguments: { lines }, task: {}, _meta: { progressToken: 'flood' } });
    const taskId = (created.task as { taskId: string }).taskId;
    const result = (await call('tasks/result', { taskId })) as { structuredContent?: { logPath?: string; exitCode?: number } };
    const seconds = (performance.now() - t0) / 1000;
    loop.disable();
    clearInterval(sampler);
    const logPath = result.structuredContent?.logPath ?? '';
    const logBytes = statSync(logPath).size;
    // The densest second of progress, not just the average: a burst would show here.
    let peakPerSecond = 0;
    for (let i = 0; i < progressAt.length; i++) {
        let j = i;
        while (j < progressAt.length && progressAt[j]! - progressAt[i]! < 1000) {
            j++;
        }
        peakPerSecond = Math.max(peakPerSecond, j - i);
    }
    const flood = {
        floodMb,
        floodSeconds: seconds,
        floodMBps: floodMb / seconds,
        floodExit: result.structuredContent?.exitCode ?? NaN,
        floodRssGrowthMb: (rssMax - rssBefore) / (1024 * 1024),
        floodLoopP99Ms: Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
        floodLoopMaxMs: Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS),
        floodProgressPerSec: progressAt.length / seconds,
        floodProgressPeakPerSec: peakPerSecond,
        floodLogComplete: logBytes === lines * LINE_BYTES ? 1 : 0,
        floodLogMb: logBytes / (1024 * 1024),
        floodLogBounded: logLimit !== undefined && logBytes <= logLimit && boundedAsExpected(readFileSync(logPath, 'utf8')) ? 1 : 0,
    };
    rmSync(logPath, { force: true });

    // Cancel many at once.
    const ids: string[] = [];
    for (let i = 0; i < cancelTasks; i++) {
        ids.push(((await call('tools/call', { name: 'tree', arguments: {}, task: {} })).task as { taskId: string }).taskId);
    }
    const pids: number[] = [];
    const deadline = performance.now() + 60_000;
    for (const task of ids) {
        for (;;) {
            const name = readdirSync(logDir).find(entry => entry.startsWith(`tree-${task}-`));
            const match = name && /pids (\[[\d,]+\])/.exec(readFileSync(join(logDir, name), 'utf8'));
            if (match) {
                pids.push(...(JSON.parse(match[1]!) as number[]));
                break;
            }
            if (performance.now() > deadline) {
                throw new Error(`task ${task} never printed its pids`);
            }
            await new Promise(resolve => setTimeout(resolve, 20));
        }
    }
    const aliveBefore = pids.filter(processRunning).length;
    const cancelMs = await cancelAll(call, ids);
    const cancel = {
        cancelTasks,
        cancelProcesses: pids.length,
        cancelAliveBefore: aliveBefore,
        cancelP50Ms: percentile(cancelMs, 50),
        cancelMaxMs: Math.max(...cancelMs),
        cancelGraceMs: DEFAULT_KILL_GRACE_MS,
        cancelLeftAlive: pids.filter(processRunning).length,
    };
    await core.close();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ ...flood, ...cancel }) + '\n');
    process.exit(0);
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
});
