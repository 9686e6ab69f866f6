import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { cannotRead } from '../util/files.js';
import type { Clock } from '../util/clock.js';
import { errorMessage, type Logger } from '../util/log.js';
import type { ClientHub } from '../tasks/hub.js';
import type { ToolDefinition } from '../tools/types.js';
import { CommandLimits } from './limits.js';
import { isDirectory } from './logFile.js';
import { CommandLogs } from './logs.js';
import { parseCommandsFile, type CommandSpec } from './spec.js';
import { commandTool } from './tool.js';
import { adoptCommand } from './adopt.js';
import type { JobFacts } from './jobFile.js';
import type { JobKeeping, RunDeps } from './run.js';

/** Changes arriving this close together are read once. */
const SETTLE_MS = 100;

export interface CommandsFileOptions {
    file: string;
    /** Default: a fresh private folder under the system temp dir, removed by closeLogs. */
    logDir?: string;
    /** What the logs may hold together (default DEFAULT_LOG_LIMIT_BYTES). */
    logLimitBytes?: number;
    /** Command runs at once, all commands together (default DEFAULT_MAX_COMMAND_PROCESSES). */
    maxProcesses?: number;
    clock: Clock;
    log: Logger;
    /** The server's connections, for owner-job entries (VS Code tasks the editor runs). */
    hub?: () => ClientHub;
    /** Why a command may not take `name` (a built-in or task tool has it), or undefined when it may. */
    taken?(name: string): string | undefined;
    /** The server's own credentials: hidden from every command's output. */
    serverSecrets?: readonly string[];
    /** Whether the task tools (read_output among them) are served: only then do results and descriptions name read_output. */
    taskTools?: boolean;
    /** Called with the new tool set after each good reload. */
    onChange(tools: ToolDefinition[]): void;
    /** Where command tasks record what a later server needs to re-adopt them (a durable store); absent: they stop with this server. */
    jobs?: JobKeeping;
}

/**
 * The tools a `--commands` file declares. Loaded at start (an error there stops the server);
 * watched after, each change re-read: a good file replaces the set, a broken one is logged and
 * the last good set stays.
 */
export class CommandsFile {
    readonly logs: CommandLogs;
    readonly limits: CommandLimits;
    tools: ToolDefinition[];
    /** The entries served now, by name. */
    private specs = new Map<string, CommandSpec>();
    private watcher?: FSWatcher;
    private timer?: ReturnType<Clock['setTimeout']>;

    constructor(private readonly options: CommandsFileOptions) {
        this.logs = new CommandLogs({ dir: options.logDir, maxBytes: options.logLimitBytes, clock: options.clock });
        this.limits = new CommandLimits(options.maxProcesses);
        try {
            this.tools = this.read();
        } catch (err) {
            this.logs.close();
            throw err;
        }
    }

    get logDir(): string {
        return this.logs.dir;
    }

    /** Starts watching the file's folder (editors often replace a file rather than write it). */
    watch(): void {
        const file = resolve(this.options.file);
        this.watcher = watch(dirname(file), (_event, name) => {
            if (name === null || name === basename(file)) {
                this.options.clock.clearTimeout(this.timer);
                this.timer = this.options.clock.setTimeout(() => this.reload(), SETTLE_MS, undefined, true);
            }
        });
        this.watcher.on('error', err => this.options.log.error(`[commands] watching ${file} failed: ${errorMessage(err)}`));
    }

    reload(): void {
        let tools: ToolDefinition[];
        try {
            tools = this.read();
        } catch (err) {
            this.options.log.error(`[commands] ${errorMessage(err)}; keeping the ${this.tools.length} command tool(s) loaded before`);
            return;
        }
        try {
            this.options.onChange(tools);
        } catch (err) {
            this.options.log.error(`[commands] ${this.options.file}: ${errorMessage(err)}; keeping the command tools loaded before`);
            return;
        }
        this.tools = tools;
        this.options.log.info(`[commands] reloaded ${this.options.file}: ${tools.map(tool => tool.name).join(', ') || 'no tools'}`);
    }

    close(): void {
        this.options.clock.clearTimeout(this.timer);
        this.watcher?.close();
    }

    /** After the last run has ended: the logs go with the server (unless their folder was the user's). */
    closeLogs(): void {
        this.logs.close();
    }

    /**
     * The work that follows a job a server that is gone started (adopt.ts), when this file still
     * declares its command; undefined when it does not (the job is then stopped and its task failed).
     * Not through the limits: the job already runs, and neither queues nor is refused.
     */
    adoption(job: JobFacts): NonNullable<ToolDefinition['run']> | undefined {
        const spec = this.specs.get(job.tool);
        const jobs = this.options.jobs;
        if (!spec || spec.ownerJob || !jobs) {
            return undefined;
        }
        const deps = { ...this.runDeps(), jobs };
        return (_args, ctx) => adoptCommand(job, spec, ctx, deps);
    }

    private runDeps(): RunDeps {
        const { clock } = this.options;
        return { clock, logs: this.logs, env: process.env, serverSecrets: this.options.serverSecrets, readOutput: this.options.taskTools === true, jobs: this.options.jobs };
    }

    private read(): ToolDefinition[] {
        const { file } = this.options;
        let text: string;
        try {
            text = readFileSync(file, 'utf8');
        } catch (err) {
            throw new Error(cannotRead('the commands file', file, err), { cause: err });
        }
        const specs = parseCommandsFile(text, file).filter((spec, index) => {
            // One clashing entry, or one whose folder is missing, costs only itself: the server still starts, and the others serve.
            const why = this.options.taken?.(spec.name);
            const cwd = missingCwd(spec);
            if (why) {
                this.options.log.error(`[commands] ${file}: ${spec.name}: ${why}; this entry is not served`);
            } else if (cwd) {
                this.options.log.error(`[commands] ${file}: tools[${index}] (${spec.name}): cwd: ${cwd}; this entry is not served`);
            }
            return !why && !cwd;
        });
        this.specs = new Map(specs.map(spec => [spec.name, spec]));
        return specs.map(spec => commandTool(spec, { ...this.runDeps(), limits: this.limits, hub: this.options.hub }));
    }
}

/** Why an entry's working directory cannot serve (an owner job runs elsewhere and has none). */
function missingCwd(spec: CommandSpec): string | undefined {
    return spec.ownerJob || isDirectory(spec.cwd) ? undefined : `${spec.cwd} is not a folder that exists (create it, or fix cwd)`;
}
