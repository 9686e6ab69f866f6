// In-process probe of stopping many command groups at once (server/src, bundled like dist/server.js):
// GROUPS command tasks, each one process that ignores SIGTERM, are cancelled at once, so each
// group is watched through its grace period and then killed. Measured in this (the server's)
// process while they stop: the event loop's delay (p99 and max beyond its sampling interval),
// each tasks/cancel's time against the grace, and any process left alive afterwards.
// Usage: node stopProbe.js GROUPS GRACE_MS   (prints one JSON line)
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { processRunning } from '../../server/src/platform/index.js';
import { CommandLimits } from '../../server/src/commands/limits.js';
import { CommandLogs } from '../../server/src/commands/logs.js';
import { parseCommandsFile } from '../../server/src/commands/spec.js';
import { commandTool } from '../../server/src/commands/tool.js';
import { systemClock } from '../../server/src/index.js';
import { percentile } from '../lib/stats.js';
import { cancelAll, inProcessServer } from './inProcess.js';

const LOOP_RESOLUTION_MS = 5;
/** sh ignores SIGTERM and exec hands that on: one process per group, which only SIGKILL ends. */
const DEAF_SH = 'trap "" TERM; echo "ready $$"; exec sleep 1000';

async function main(): Promise<void> {
    const [groups, graceMs] = process.argv.slice(2, 4).map(Number) as [number, number];
    const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-stop-probe-'));
    const file = join(dir, 'commands.json');
    writeFileSync(file, JSON.stringify({ tools: [{ name: 'deaf', description: 'Ignores SIGTERM.', command: ['/bin/sh', '-c', DEAF_SH], killGraceMs: graceMs, whenBusy: 'queue' }] }));
    // No cap on processes: every group starts and stops at once.
    const deps = { clock: systemClock, logs: new CommandLogs({ dir, clock: systemClock }), limits: new CommandLimits(Infinity), env: process.env };
    const tools = parseCommandsFile(readFileSync(file, 'utf8'), file).map(spec => commandTool(spec, deps));
    const { core, call } = await inProcessServer(tools);

    const ids: string[] = [];
    for (let i = 0; i < groups; i++) {
        ids.push(((await call('tools/call', { name: 'deaf', arguments: {}, task: {} })).task as { taskId: string }).taskId);
    }
    // Each log says "ready <pid>" once sh has set its trap.
    const pids: number[] = [];
    const deadline = performance.now() + 60_000;
    while (pids.length < groups) {
        pids.length = 0;
        for (const name of readdirSync(dir).filter(entry => entry.startsWith('deaf-'))) {
            const match = /ready (\d+)/.exec(readFileSync(join(dir, name), 'utf8'));
            if (match) {
                pids.push(Number(match[1]));
            }
        }
        if (performance.now() > deadline) {
            throw new Error(`only ${pids.length} of ${groups} groups started`);
        }
        await new Promise(resolve => setTimeout(resolve, 50));
    }

    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const cancelMs = await cancelAll(call, ids);
    loop.disable();
    const result = {
        stopGroups: groups,
        stopGraceMs: graceMs,
        stopLoopP99Ms: Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
        stopLoopMaxMs: Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS),
        stopCancelP50Ms: percentile(cancelMs, 50),
        stopCancelMaxMs: Math.max(...cancelMs),
        stopLeftAlive: pids.filter(processRunning).length,
    };
    await core.close();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(0);
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
});
