/**
 * One host run: the scripted model, the host in its temp HOME with our server as its MCP server,
 * the prompt, and what the model was told. Each run is also written to
 * test-results/hosts/<host>-<scenario>.json, the record the matrix's table is made from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SERVER_JS } from '../support/helpers.js';
import { DRIVERS } from './drivers/index.js';
import type { InstalledHost } from './hostInstall.js';
import { baseEnv, type HostExit, makeHostDirs, removeHostDirs, runHost, type HostDirs } from './hostProcess.js';
import { findInstructions, type FoundInstructions } from './model/instructions.js';
import { startScriptedModel, type StrayRequest } from './model/server.js';
import { startRefusingProxy } from './refusingProxy.js';
import type { Recording, Turn } from './model/script.js';
import { INSTRUCTIONS_MARKER } from './scenarios.js';
import { inMemory } from '../support/serverState.js';

/** A run that outlives this is killed with its tree: hosts answer a scripted model in seconds. */
export const RUN_TIMEOUT_MS = 180_000;

export interface RunOptions {
    scenario: string;
    script: Turn[];
    prompt: string;
    /** Flags after `--stdio`. */
    serverFlags?: string[];
    /** Writes files the server flags name, into the run's folder, before the host starts. */
    prepare?: (dirs: HostDirs) => string[];
}

export interface HostRun {
    exit: HostExit;
    recording: Recording;
    strays: StrayRequest[];
    /** Where the host tried to go beyond loopback (refused), through the proxy variables. */
    outbound: string[];
    /** Our server's instructions as the host handed them to the model in its first conversation request, if it did. */
    instructions?: FoundInstructions;
}

const RESULTS_DIR = resolve(__dirname, '../../test-results/hosts');

export async function runOnHost(installed: InstalledHost, options: RunOptions): Promise<HostRun> {
    const model = await startScriptedModel(options.script);
    const proxy = await startRefusingProxy();
    const dirs = makeHostDirs(installed.host.name);
    try {
        const flags = [...(options.serverFlags ?? []), ...(options.prepare?.(dirs) ?? [])];
        const launch = DRIVERS[installed.host.name]({
            installed,
            dirs,
            modelUrl: model.url,
            server: { command: process.execPath, args: [SERVER_JS, '--stdio', ...inMemory(flags), ...flags] },
            prompt: options.prompt,
            env: baseEnv(dirs, proxy.url),
        });
        const exit = await runHost(launch.command, launch.args, { env: launch.env, cwd: dirs.workdir, timeoutMs: RUN_TIMEOUT_MS });
        const recording = model.recording;
        const instructions = findInstructions(recording.turns[0]?.body, INSTRUCTIONS_MARKER);
        const run = { exit, recording, strays: model.strays, outbound: [...new Set(proxy.attempts)], instructions };
        record(installed, options.scenario, run);
        return run;
    } finally {
        await model.close();
        await proxy.close();
        if (!process.env.MCP_TASKS_HOSTS_KEEP) {
            removeHostDirs(dirs);
        }
    }
}

function record(installed: InstalledHost, scenario: string, run: HostRun): void {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const tail = (text: string) => text.slice(-4000);
    writeFileSync(
        join(RESULTS_DIR, `${installed.host.name}-${scenario}.json`),
        JSON.stringify(
            {
                host: installed.host.spec,
                scenario,
                installMs: installed.installMs,
                runMs: run.exit.ms,
                exit: { code: run.exit.code, signal: run.exit.signal, timedOut: run.exit.timedOut },
                toolsOffered: run.recording.toolsOffered,
                instructions: run.instructions,
                results: run.recording.results,
                requests: run.recording.requests.map(request => ({ path: request.path, tools: request.view.tools.length, results: request.view.results.length, reply: request.reply })),
                strays: run.strays,
                outbound: run.outbound,
                // The whole first conversation request, when asked for (it is large): to see a dialect's details.
                firstRequest: process.env.MCP_TASKS_HOSTS_DEBUG ? run.recording.turns[0]?.body : undefined,
                stdout: tail(run.exit.stdout),
                stderr: tail(run.exit.stderr),
            },
            null,
            2,
        ) + '\n',
    );
}

/** What a failed assertion should show: how the host ended and what it printed. */
export function describeRun(run: HostRun): string {
    const { exit } = run;
    return [
        `exit ${exit.code ?? exit.signal}${exit.timedOut ? ' (timed out, killed)' : ''} after ${exit.ms} ms`,
        `model requests: ${run.recording.requests.map(request => `${request.path} tools=${request.view.tools.length} results=${request.view.results.length} → ${request.reply.kind === 'call' ? `call ${request.reply.name}` : 'text'}`).join('; ') || 'none'}`,
        run.outbound.length > 0 ? `refused beyond loopback: ${run.outbound.join(', ')}` : '',
        run.strays.length > 0 ? `unanswered: ${run.strays.map(stray => `${stray.method} ${stray.url}`).join(', ')}` : '',
        `stdout: ${exit.stdout.slice(-1500)}`,
        `stderr: ${exit.stderr.slice(-1500)}`,
    ]
        .filter(Boolean)
        .join('\n');
}
