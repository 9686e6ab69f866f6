#!/usr/bin/env node
// First: on a Node.js too old for the rest, one line says so before anything else can fail.
import './nodeCheck.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { systemClock } from './util/clock.js';
import { CommandsFile } from './commands/commandsFile.js';
import { removeLeftoverLogFolders } from './commands/leftovers.js';
import { conformanceFixtures } from './demo/conformance/index.js';
import { demoServerOptions } from './demo/options.js';
import { createLogger, errorMessage, redactingLogger, type Logger } from './util/log.js';
import { wrapRedactor, wrapSecrets } from './gateway/wrapSecrets.js';
import { BIN, parseCli, usage, type CliOptions } from './options.js';
import { createTasksServer, type TasksServer } from './server.js';
import type { Gateway } from './gateway/gateway.js';
// attach.ts names the gateway's types only: the gateway itself (and the SDK client) is loaded only when a server is wrapped.
import { attachGateway, forwardRoots, gatewayServerOptions } from './gateway/attach.js';
import { DurableTaskStore } from './tasks/durableStore.js';
import { loadSqlite } from './tasks/sqlite.js';
import { TASKS_FILE } from './tasks/taskJournal.js';
import type { TaskRecord, TaskStore } from './tasks/types.js';
import { jobKeeping, keepsRunning, resumeJobs } from './commands/jobs.js';
import type { JobKeeping } from './commands/run.js';
import { parseLostTasks } from './tasks/lostTasks.js';
import { defaultDataDir } from './util/dataDir.js';
import type { ToolDefinition } from './tools/types.js';
import { connectStdio } from './transports/stdio.js';
import { listenHttp } from './transports/http.js';
import { announceOwnerEndpoint } from './transports/ownerAnnounce.js';
import { SERVER_VERSION } from './version.js';

const SHUTDOWN_REASON = 'Server shutting down';

/**
 * V8 lets the old generation grow to several times what is live before collecting it; a server
 * holding many long-lived tasks then keeps 2-3× their memory committed. 50 % headroom measured
 * 6.8 → 3.3 KB of RSS per working task (40k tasks over HTTP) for a few more full collections.
 */
const HEAP_GROWING_PERCENT = 50;

async function main(argv: string[]): Promise<number> {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    let options: CliOptions;
    try {
        options = parseCli(argv);
    } catch (err) {
        process.stderr.write(`${BIN}: ${errorMessage(err)}\nRun with --help for usage.\n`);
        return 2;
    }
    if (options.help || options.version) {
        process.stdout.write(options.help ? usage() : `${SERVER_VERSION}\n`);
        return 0;
    }
    // A wrapped server's URL and header credentials show as *** in whatever the log says (wrapSecrets.ts).
    const log = redactingLogger(createLogger(options.logLevel), wrapRedactor(options.wrap));
    const started = await start(options, log);
    if (typeof started === 'number') {
        return started;
    }
    return options.transport === 'stdio' ? serveStdio(started, options, log) : serveHttp(started, options, log);
}

interface Started {
    core: TasksServer;
    commands?: CommandsFile;
    gateway?: Gateway;
}

/**
 * Exit codes: 2 for a configuration the user must change (a flag, the commands file), as for a
 * flag the parser refuses; 1 for what failed around a good configuration (Redis unreachable, the
 * port taken, the gateway's SDK missing).
 */
const CONFIG_ERROR = 2;
const START_ERROR = 1;

/** The store, the tools and the core; or the exit code, the reason logged, when one of them cannot start. */
async function start(options: CliOptions, log: Logger): Promise<Started | number> {
    const workerId = options.workerId ?? `${hostname().replace(/[^\x21-\x7e]/g, '_')}:${process.pid}:${randomBytes(3).toString('hex')}`;
    let store: TaskStore | undefined;
    // Replicas sharing a store sign a paused call's requestState with one key, so a retry may land on any of them.
    let requestStateKey: string | undefined;
    const dataDir = options.dataDir ? resolve(options.dataDir) : defaultDataDir();
    // Command tasks that outlive this server, and those a server that is gone left running (commands/jobs.ts).
    let keeping: JobKeeping | undefined;
    let resumed: TaskRecord[] = [];
    try {
        if (options.storeKind === 'sqlite') {
            const wanted = jobKeeping({ dataDir, windowMs: options.commandsReattachMs, worker: workerId, commands: options.commandsFile !== undefined });
            const durable = openDurableStore(dataDir, workerId, log, keepsRunning(wanted, dataDir, systemClock, log));
            store = durable?.store;
            keeping = durable && wanted;
            resumed = durable?.resumed ?? [];
        } else if (options.storeKind === 'redis') {
            store = await openRedisStore(options, workerId, log);
        }
        requestStateKey = await store?.sharedSecret?.('request-state');
    } catch (err) {
        log.error(`[store] ${errorMessage(err)}`);
        return START_ERROR;
    }
    // Log folders of servers that died without closing (but where a command lives on); nothing waits on it.
    void removeLeftoverLogFolders(log);
    const demo = demoServerOptions(options.taskTools, options.demoTools);
    // Fixtures first: the conformance suite calls the first listed tool with no arguments.
    const fixtures = options.conformanceFixtures ? conformanceFixtures(() => core.setTools(allTools())) : [];
    let commands: CommandsFile | undefined;
    let gateway: Gateway | undefined;
    let commandTools: ToolDefinition[] = [];
    const allTools = () => [...fixtures, ...demo.tools, ...commandTools, ...(gateway?.tools() ?? [])];
    try {
        commands = options.commandsFile
            ? new CommandsFile({
                  file: options.commandsFile,
                  logDir: options.commandsLogDir,
                  logLimitBytes: options.commandsLogLimitBytes,
                  maxProcesses: options.maxCommandProcesses,
                  clock: systemClock,
                  log,
                  serverSecrets: serverSecrets(options),
                  jobs: keeping,
                  taskTools: options.taskTools,
                  // Read only when an owner job starts, long after core exists.
                  hub: () => core.hub,
                  taken: name => takenName(name, [...fixtures, ...demo.tools], options.taskTools),
                  onChange: tools => {
                      commandTools = tools;
                      core.setTools(allTools());
                  },
              })
            : undefined;
        commandTools = commands?.tools ?? [];
    } catch (err) {
        log.error(`[commands] ${errorMessage(err)}`);
        return CONFIG_ERROR;
    }
    if (options.wrap.length > 0) {
        try {
            gateway = await loadGateway(options, log, name => takenName(name, [...fixtures, ...demo.tools, ...commandTools], options.taskTools) !== undefined);
        } catch (err) {
            log.error(`[gateway] ${errorMessage(err)}`);
            commands?.close();
            return START_ERROR;
        }
    }
    // A gateway's wrapped tools, instructions and forwarded methods join the server's own (gateway/attach.ts).
    const serving = { instructions: demo.instructions, tools: allTools };
    const core = createTasksServer({
        ...options,
        ...demo,
        tools: allTools(),
        ...(gateway ? gatewayServerOptions(gateway, serving) : {}),
        requestStateKey,
        store,
        workerId,
        logger: log,
    });
    // The editor names the tasks its previous server lost in a crash: a client still waiting on one reads why it failed.
    const lost = parseLostTasks(options.lostTasks);
    if (lost.length > 0) {
        core.runtime.rememberLost(lost);
        log.info(`[tasks] ${lost.length} task(s) of the previous server answer as lost`);
    }
    if (keeping && resumed.length > 0) {
        resumeJobs(resumed, keeping, job => commands?.adoption(job), (record, work) => core.runtime.resume(record, work), systemClock, log);
    }
    if (gateway) {
        // In the background: the first answers never wait for a wrapped server to start (gateway.ts).
        void attachGateway(gateway, core, serving);
    }
    if (commands) {
        log.info(`[commands] ${commands.tools.length} command tool(s) from ${options.commandsFile}; logs in ${commands.logDir}`);
        commands.watch();
    }
    return { core, commands, gateway };
}

async function serveStdio({ core, commands, gateway }: Started, options: CliOptions, log: Logger): Promise<number> {
    // Listening before the owner endpoint is announced: a signal right after still cleans up.
    const stopSignal = waitForSignal();
    const connection = connectStdio(core, { maxMessageBytes: options.bodyLimitBytes });
    if (gateway) {
        forwardRoots(gateway, connection.session);
    }
    log.info('[stdio] MCP Tasks server ready on stdin/stdout');
    const owner = options.ownerAnnounce
        ? await announceOwnerEndpoint(core, options.ownerAnnounce, options.ownerToken!, options.sessionIdleMs, options.bodyLimitBytes).catch(err => {
              log.error(`[owner] cannot open the owner endpoint: ${errorMessage(err)}`);
              return undefined;
          })
        : undefined;
    if (owner) {
        log.info(`[owner] owner endpoint on ${owner.url}`);
    }
    const signal = await Promise.race([connection.closed.then(() => 'end of input'), stopSignal]);
    log.info(`[stdio] stopping (${signal})`);
    owner?.stopAccepting();
    commands?.close();
    await core.close(SHUTDOWN_REASON);
    commands?.closeLogs();
    await gateway?.close();
    await owner?.close();
    return 0;
}

async function serveHttp({ core, commands, gateway }: Started, options: CliOptions, log: Logger): Promise<number> {
    let http;
    try {
        http = await listenHttp(core, options);
    } catch (err) {
        log.error(`[http] ${listenFailure(options, err)}`);
        commands?.close();
        await core.close();
        await gateway?.close();
        return START_ERROR;
    }
    process.stdout.write(JSON.stringify({ url: http.url }) + '\n');
    log.info(`[http] MCP Tasks server listening on ${http.url}${options.tokens.length > 0 ? ' (bearer token required)' : ' (no token: any local process may connect)'}`);
    const stdinClosed = options.exitWithStdin ? [stdinEnd()] : [];
    const signal = await Promise.race([waitForSignal(), ...stdinClosed]);
    log.info(`[http] stopping (${signal})`);
    http.stopAccepting();
    commands?.close();
    // Cancelling first lets each client see its tasks end, with the reason, before streams close.
    await core.close(SHUTDOWN_REASON);
    commands?.closeLogs();
    await gateway?.close();
    await http.close();
    return 0;
}

/** Why the server cannot listen, and what to do about it. */
function listenFailure(options: CliOptions, err: unknown): string {
    const at = `${options.host}:${options.port}`;
    switch ((err as NodeJS.ErrnoException).code) {
        case 'EADDRINUSE':
            return `cannot listen on ${at}: the port is already in use (another MCP Tasks server, or another program); stop it, or start this one with --port N (--port 0 picks a free port)`;
        case 'EACCES':
            return `cannot listen on ${at}: not allowed to use that port (ports below 1024 need privileges); pick another with --port N`;
        case 'EADDRNOTAVAIL':
            return `cannot listen on ${at}: this machine has no address ${options.host}; give one of its own with --host`;
        default:
            return `cannot listen on ${at}: ${errorMessage(err)}`;
    }
}

/** The credentials this server was given, however they came (flags or environment): no command output shows them. */
function serverSecrets(options: CliOptions): string[] {
    let storePassword = '';
    try {
        storePassword = options.storeUrl ? decodeURIComponent(new URL(options.storeUrl).password) : '';
    } catch {
        // Not a URL: nothing to hide in it.
    }
    return [...options.tokens, options.ownerToken ?? '', storePassword, ...wrapSecrets(options.wrap)].filter(Boolean);
}

/** Why a command tool cannot be called `name`: a built-in tool has it, or a task tool does (or would). */
function takenName(name: string, builtIn: readonly { name: string }[], taskTools: boolean): string | undefined {
    if (builtIn.some(tool => tool.name === name)) {
        return 'a built-in tool has this name';
    }
    if (taskTools && (name.startsWith('start_') || ['get_task', 'cancel_task', 'list_tasks', 'read_output'].includes(name))) {
        return 'names start_<tool>, get_task, cancel_task, list_tasks and read_output belong to the task tools (or run with --no-task-tools)';
    }
    return undefined;
}

/** The gateway and the SDK client it uses are loaded only when a server is wrapped; its servers start once the server exists. */
async function loadGateway(options: CliOptions, log: Logger, taken: (name: string) => boolean): Promise<Gateway> {
    const { Gateway } = await import('./gateway/gateway.js').catch((err: unknown) => {
        // The SDK client is bundled apart: dist/gateway-client.js beside a clone's dist/server.js,
        // dist/gateway/sdkClient.js in the npm package (server/build.mjs). Only a clone can lack it.
        const code = (err as NodeJS.ErrnoException).code;
        if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && /@modelcontextprotocol\/sdk|gateway-client/.test(errorMessage(err))) {
            throw new Error('--wrap needs the MCP SDK client, the file dist/gateway-client.js beside dist/server.js: run npm run build, which makes both', { cause: err });
        }
        throw err;
    });
    return new Gateway(options.wrap, { log, clock: systemClock, taken });
}

/**
 * The SQLite file in the data folder (the default store); on a Node.js without node:sqlite, the
 * memory store, saying so (the server must keep working wherever it runs: Node 20, an older VS
 * Code's Electron).
 */
function openDurableStore(dir: string, workerId: string, log: Logger, keepRunning: (record: TaskRecord) => boolean): { store: TaskStore; resumed: TaskRecord[] } | undefined {
    const DatabaseSync = loadSqlite();
    if (!DatabaseSync) {
        log.warn(`[store] this Node.js (${process.version}) has no node:sqlite, so tasks are kept in memory and end with this process: run on Node.js 22.13 or later to keep them across restarts, or use --store redis://… (--store memory chooses memory without this note)`);
        return undefined;
    }
    const onWriteError = (err: unknown, changes: number) =>
        log.error(`[store] could not write ${changes} task change(s) to ${join(dir, TASKS_FILE)}: ${errorMessage(err)}; they are kept in memory only, until this server ends`);
    const { store, start } = DurableTaskStore.open(DatabaseSync, { dir, workerId, onWriteError, keepRunning });
    const resumed = start.resumed.length > 0 ? `, ${start.resumed.length} command task(s) still running to follow` : '';
    log.info(
        `[store] tasks are kept in ${store.path}` +
            (start.kept + start.failed + start.resumed.length > 0 ? `; took over ${start.kept} finished task(s)${resumed}, and failed ${start.failed} that were running in a server that is gone (${start.from.join(', ')})` : ''),
    );
    return { store, resumed: start.resumed };
}

/** Loaded only when asked for, so the in-memory default does not pay for the Redis client. */
async function openRedisStore(options: CliOptions, workerId: string, log: Logger): Promise<TaskStore> {
    const { RedisTaskStore, redactUrl } = await import('./tasks/redisStore.js').catch((err: unknown) => {
        // Installed from npm, the Redis client is an optional peer: most users never need it.
        if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && /'redis'/.test(errorMessage(err))) {
            throw new Error(
                '--store redis needs the optional "redis" package next to @mcp-tasks/server: npm install redis ' +
                    `(with npx: npx -y -p @mcp-tasks/server -p redis ${BIN} …)`,
            );
        }
        throw err;
    });
    const store = await RedisTaskStore.connect({ url: options.storeUrl!, prefix: options.storePrefix, workerId, leaseMs: options.workerLeaseMs, log });
    log.info(
        `[store] tasks live in Redis at ${redactUrl(options.storeUrl!)} (prefix ${options.storePrefix}); this replica is worker ${workerId} with a ${options.workerLeaseMs} ms lease` +
            (options.transport === 'http' ? `; HTTP tasks are bound to the ${options.bindTo === 'principal' ? 'bearer token' : 'HTTP session'}` : ''),
    );
    return store;
}

function stdinEnd(): Promise<string> {
    return new Promise(resolve => {
        process.stdin.resume();
        process.stdin.once('end', () => resolve('stdin closed'));
        process.stdin.once('close', () => resolve('stdin closed'));
    });
}

function waitForSignal(): Promise<string> {
    return new Promise(resolve => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
    });
}

main(process.argv.slice(2)).then(
    code => {
        process.exitCode = code;
        // Stray handles (a client's keep-alive socket) must not keep a stopping server alive.
        setTimeout(() => process.exit(code), 500).unref();
    },
    err => {
        process.stderr.write(`${BIN}: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exit(1);
    },
);
