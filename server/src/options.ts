import { parseArgs } from 'node:util';
import { Env, PROTOCOL_VERSION } from './contract.js';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { DEFAULT_LIMITS } from './server.js';
import { DEFAULT_CONNECTION_LIMITS } from './transports/connectionGuard.js';
import { DEFAULT_MAX_COMMAND_PROCESSES } from './commands/limits.js';
import { DEFAULT_LOG_LIMIT_BYTES } from './commands/logs.js';

export interface CliOptions {
    transport: 'stdio' | 'http';
    host: string;
    port: number;
    /** Every client token; each is a distinct identity. */
    tokens: string[];
    ownerToken?: string;
    /** A shared task store (`redis://…`); undefined keeps tasks in this process's memory. */
    storeUrl?: string;
    storePrefix: string;
    workerLeaseMs: number;
    workerId?: string;
    /** What HTTP clients' tasks are bound to: the session (memory default) or the bearer token (redis default). */
    bindTo: 'session' | 'principal';
    defaultTtlMs: number;
    maxTtlMs: number;
    maxTasksPerClient: number;
    maxRetainedTasksPerClient: number;
    maxRetainedBytesPerClient: number;
    pollIntervalMs: number;
    /** Cancel a task-augmented call's task its client stopped polling this long ago; 0 = never. */
    abandonAfterMs: number;
    /** A JSON file declaring command tools (watched and reloaded). */
    commandsFile?: string;
    commandsLogDir?: string;
    commandsLogLimitBytes: number;
    maxCommandProcesses: number;
    /** Offer start_<tool>, get_task, cancel_task and list_tasks. */
    taskTools: boolean;
    /** Also serve the tools the official conformance suite calls (test_*, protocol_error_job, …). */
    conformanceFixtures: boolean;
    /** Serve the built-in demonstration tools (greet, slow_compute, …). */
    demoTools: boolean;
    sessionIdleMs: number;
    bodyLimitBytes: number;
    maxConnections: number;
    allowRemote: boolean;
    ownerAnnounce?: string;
    exitWithStdin: boolean;
    logLevel: LogLevel;
    help: boolean;
    version: boolean;
}

export const HELP = `Usage: mcp-tasks-server [--stdio | --http] [options]

An MCP server implementing MCP Tasks v1 (protocol ${PROTOCOL_VERSION}): task-augmented tools with
tasks/get, tasks/result, tasks/list, tasks/cancel, progress and status notifications; and, on the
same endpoint, protocol 2026-07-28 (stateless, no initialize) with the Tasks extension
(io.modelcontextprotocol/tasks): each request is served by the revision it names (docs/PROTOCOL.md).

Transport:
  --stdio                      Speak MCP on stdin/stdout (the default). Logs go to stderr.
  --http                       Serve Streamable HTTP at http://HOST:PORT/mcp. Once listening,
                               prints one JSON line {"url": "..."} to stdout.
  --host HOST                  Address to bind (default 127.0.0.1). Non-loopback addresses are
                               refused unless --allow-remote and --token are given.
  --port PORT                  Port to bind (default 8080; 0 picks a free port).
  --token SECRET               Require "Authorization: Bearer SECRET" on every HTTP request
                               (env MCP_TASKS_TOKEN). Without it any local process may connect.
                               A secret that starts with "-" must be written --token=SECRET.
                               Repeat it to admit several clients, each token a distinct identity
                               (the env variable may list several, comma-separated).
  --owner-token SECRET         A second, distinct credential that sees and can cancel every
                               client's tasks (env MCP_TASKS_OWNER_TOKEN). Never give it to clients.
  --allow-remote               Permit a non-loopback --host (requires --token) and skip the
                               Host-header check. Origin is still checked.
  --owner-announce FILE        stdio mode: also serve an owner-only endpoint on 127.0.0.1 (a free
                               port, --owner-token required) and write {"url","pid"} to FILE
                               (mode 0600) so the launching editor can watch every task
                               (env MCP_TASKS_OWNER_ANNOUNCE).
  --exit-with-stdin            http mode: exit when stdin closes, so a parent that dies never
                               leaves the server behind.
  --session-idle-timeout DUR   Close HTTP sessions idle this long with no open stream (default 30m).
  --body-limit BYTES           Largest accepted HTTP body or stdio line (default 4194304 = 4 MiB).
  --max-connections N          HTTP connections open at once (default 512; keep it well under the
                               file-descriptor limit, ulimit -n). A connection must send an
                               authenticated request within 5 s or is cut, and at the cap a new
                               one displaces the oldest that has not, so peers without a token
                               cannot lock clients out. Bodies idle 10 s, requests not received
                               within 30 s and keep-alive connections idle 5 s are closed.

Tasks:
  --store URL                  Where tasks live: memory (the default) or redis://HOST:PORT[/DB]
                               (rediss:// for TLS; env MCP_TASKS_STORE). With Redis, several
                               replicas share tasks, results, cancellation and notifications.
  --store-prefix PREFIX        Namespace of the keys in Redis (default mcp-tasks:).
  --worker-lease DUR           Redis: a replica silent this long is lost and its running tasks
                               fail (default 10s).
  --worker-id ID               Redis: this replica's name in tasks and logs (default host:pid:random).
  --bind session|principal     What an HTTP client's tasks are bound to: its HTTP session (the
                               default with the memory store; session close cancels them) or its
                               bearer token (the default with --store redis, so any replica serves
                               them; requires --token).
  --default-ttl DUR            Retention of a task when the client asks none (default 1h).
                               VS Code never asks and gives up at receipt + ttl, so keep it long.
  --max-ttl DUR                Upper bound applied to client-requested ttl (default 24h).
  --max-tasks-per-client N     Live (non-terminal) tasks one client may hold (default 1000).
  --max-retained-tasks-per-client N
                               Tasks one client may hold, finished ones included until their ttl
                               runs out (default 10000). Beyond it tools/call with "task" answers
                               -32000 naming this limit.
  --max-retained-bytes-per-client BYTES
                               What one client's tasks may hold together: arguments, progress
                               tokens and results, as JSON (default 67108864 = 64 MiB); -32000
                               naming this limit beyond it. Tasks of HTTP sessions that ended (only
                               the owner still sees them) are held to one such budget for all
                               ended sessions together, the oldest deleted first.
  --poll-interval DUR          pollInterval suggested to clients (default 1s).
  --abandon-after DUR          Cancel the task of a task-augmented tools/call once its client has
                               stopped following it: no tasks/get, no waiting tasks/result (nor,
                               for a 2026-07-28 client, an open subscriptions/listen naming it)
                               for DUR (at least 5 poll intervals). Off by default; VS Code, which polls
                               but never cancels, leaves tasks running when a chat is stopped, so
                               the extension turns it on. Background tasks (start_<tool>) and the
                               owner's view are not counted. Not with --store redis.
  --no-task-tools              Do not offer the task tools. By default every task-capable tool X
                               also gets a plain tool start_X (same arguments and annotations) that
                               starts it in the background, plus get_task (status, latest message,
                               result; can wait up to 20 s), cancel_task and list_tasks, so models in
                               hosts that never send "task" (Claude Code, Cursor, Codex) can use them.
  --conformance-fixtures       Also serve the fixture tools the official MCP conformance suite
                               (@modelcontextprotocol/conformance) calls, for both revisions: test_*,
                               protocol_error_job, multi_input, test_tool_with_task,
                               json_schema_2020_12_tool. For testing only; they are never in the
                               default tool list.

  --no-demo-tools              Do not serve the demonstration tools (greet, slow_compute,
                               failing_job, confirm_delete, write_haiku, external_job, deploy),
                               which do no real work; with --commands only the command tools (and
                               their task tools) are offered.

Commands:
  --commands FILE              Serve the command tools FILE declares (JSON: {"tools": [...]}, see
                               docs/CLI.md): each runs a program with typed parameters as
                               whole arguments, in its own process group, cancellable. FILE is
                               watched; a broken edit is logged and the last good set kept.
  --commands-log-dir DIR       Where each command run's full output goes (default a fresh private
                               folder under the system temp dir, removed when the server exits).
                               A log is deleted when its task expires.
  --commands-log-limit BYTES   What the command logs may hold together (default 1073741824 = 1 GiB);
                               beyond it the oldest logs of ended runs are deleted first.
  --max-command-processes N    Command runs at once, all commands and clients together (default 32);
                               further calls wait their turn.

Other:
  --log-level LEVEL            error | warn | info | debug (default info); logs go to stderr.
  --version                    Print the version and exit.
  -h, --help                   Print this help and exit.

Durations are a number with an optional unit: ms, s, m or h (a bare number means milliseconds),
e.g. 1500, 90s, 30m, 1h.
`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, flag: string): number {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
    if (!match) {
        throw new Error(`${flag}: "${text}" is not a duration (e.g. 1500, 90s, 30m, 1h)`);
    }
    return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}

function parseCount(text: string, flag: string, min: number): number {
    if (!/^\d+$/.test(text) || Number(text) < min) {
        throw new Error(`${flag}: "${text}" must be a whole number ≥ ${min}`);
    }
    return Number(text);
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
    const { values } = parseArgs({
        args: argv,
        strict: true,
        allowPositionals: false,
        options: {
            stdio: { type: 'boolean' },
            http: { type: 'boolean' },
            host: { type: 'string' },
            port: { type: 'string' },
            token: { type: 'string', multiple: true },
            'owner-token': { type: 'string' },
            'allow-remote': { type: 'boolean' },
            'owner-announce': { type: 'string' },
            'exit-with-stdin': { type: 'boolean' },
            'session-idle-timeout': { type: 'string' },
            'body-limit': { type: 'string' },
            'max-connections': { type: 'string' },
            'default-ttl': { type: 'string' },
            'max-ttl': { type: 'string' },
            'max-tasks-per-client': { type: 'string' },
            'max-retained-tasks-per-client': { type: 'string' },
            'max-retained-bytes-per-client': { type: 'string' },
            'poll-interval': { type: 'string' },
            'abandon-after': { type: 'string' },
            'no-task-tools': { type: 'boolean' },
            'conformance-fixtures': { type: 'boolean' },
            'no-demo-tools': { type: 'boolean' },
            commands: { type: 'string' },
            'commands-log-dir': { type: 'string' },
            'commands-log-limit': { type: 'string' },
            'max-command-processes': { type: 'string' },
            store: { type: 'string' },
            'store-prefix': { type: 'string' },
            'worker-lease': { type: 'string' },
            'worker-id': { type: 'string' },
            bind: { type: 'string' },
            'log-level': { type: 'string' },
            version: { type: 'boolean' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.stdio && values.http) {
        throw new Error('Choose one transport: --stdio or --http');
    }
    const logLevel = (values['log-level'] ?? 'info') as LogLevel;
    if (!LOG_LEVELS.includes(logLevel)) {
        throw new Error(`--log-level: "${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
    }
    const port = parseCount(values.port ?? '8080', '--port', 0);
    if (port > 65535) {
        throw new Error('--port: must be at most 65535');
    }
    const tokens = [...new Set((values.token ?? (env[Env.clientTokens] ?? '').split(',')).map(t => t.trim()).filter(Boolean))];
    const ownerToken = values['owner-token'] ?? (env[Env.ownerToken] || undefined);
    if (ownerToken && tokens.includes(ownerToken)) {
        throw new Error('--owner-token must differ from --token');
    }
    const store = parseStore(values.store ?? env.MCP_TASKS_STORE);
    const bindTo = values.bind ?? (store ? 'principal' : 'session');
    if (bindTo !== 'session' && bindTo !== 'principal') {
        throw new Error(`--bind: "${bindTo}" must be session or principal`);
    }
    const workerId = values['worker-id'];
    if (workerId !== undefined && !/^[\x21-\x7e]{1,100}$/.test(workerId)) {
        throw new Error('--worker-id: use 1 to 100 printable characters without spaces');
    }
    const options: CliOptions = {
        transport: values.http ? 'http' : 'stdio',
        host: values.host ?? '127.0.0.1',
        port,
        tokens,
        ownerToken,
        storeUrl: store,
        storePrefix: values['store-prefix'] ?? (env.MCP_TASKS_STORE_PREFIX || 'mcp-tasks:'),
        workerLeaseMs: parseDuration(values['worker-lease'] ?? '10s', '--worker-lease'),
        workerId,
        bindTo,
        allowRemote: values['allow-remote'] ?? false,
        ownerAnnounce: values['owner-announce'] ?? (env[Env.ownerAnnounce] || undefined),
        exitWithStdin: values['exit-with-stdin'] ?? false,
        sessionIdleMs: parseDuration(values['session-idle-timeout'] ?? '30m', '--session-idle-timeout'),
        bodyLimitBytes: parseCount(values['body-limit'] ?? String(4 * 1024 * 1024), '--body-limit', 1024),
        maxConnections: parseCount(values['max-connections'] ?? String(DEFAULT_CONNECTION_LIMITS.maxConnections), '--max-connections', 1),
        defaultTtlMs: parseDuration(values['default-ttl'] ?? `${DEFAULT_LIMITS.defaultTtlMs}`, '--default-ttl'),
        maxTtlMs: parseDuration(values['max-ttl'] ?? `${DEFAULT_LIMITS.maxTtlMs}`, '--max-ttl'),
        maxTasksPerClient: parseCount(values['max-tasks-per-client'] ?? String(DEFAULT_LIMITS.maxTasksPerClient), '--max-tasks-per-client', 1),
        maxRetainedTasksPerClient: parseCount(values['max-retained-tasks-per-client'] ?? String(DEFAULT_LIMITS.maxRetainedTasksPerClient), '--max-retained-tasks-per-client', 1),
        maxRetainedBytesPerClient: parseCount(values['max-retained-bytes-per-client'] ?? String(DEFAULT_LIMITS.maxRetainedBytesPerClient), '--max-retained-bytes-per-client', 1024),
        pollIntervalMs: parseDuration(values['poll-interval'] ?? `${DEFAULT_LIMITS.pollIntervalMs}`, '--poll-interval'),
        abandonAfterMs: values['abandon-after'] === undefined ? 0 : parseDuration(values['abandon-after'], '--abandon-after'),
        taskTools: !values['no-task-tools'],
        conformanceFixtures: values['conformance-fixtures'] ?? false,
        demoTools: !values['no-demo-tools'],
        commandsFile: values.commands,
        commandsLogDir: values['commands-log-dir'],
        commandsLogLimitBytes: parseCount(values['commands-log-limit'] ?? String(DEFAULT_LOG_LIMIT_BYTES), '--commands-log-limit', 1024 * 1024),
        maxCommandProcesses: parseCount(values['max-command-processes'] ?? String(DEFAULT_MAX_COMMAND_PROCESSES), '--max-command-processes', 1),
        logLevel,
        help: values.help ?? false,
        version: values.version ?? false,
    };
    if (options.ownerAnnounce && !options.ownerToken) {
        throw new Error('--owner-announce requires --owner-token (or MCP_TASKS_OWNER_TOKEN)');
    }
    if (options.allowRemote && options.tokens.length === 0) {
        throw new Error('--allow-remote requires --token');
    }
    if (options.transport === 'http' && options.bindTo === 'principal' && options.tokens.length === 0) {
        throw new Error(
            (values.bind ? '--bind principal' : '--store redis binds each client\'s tasks to its bearer token (so any replica can serve them) and') +
                ' requires --token: give each client its own --token, or pass --bind session to keep tasks on the HTTP session of one replica',
        );
    }
    if (options.workerLeaseMs < 100) {
        throw new Error('--worker-lease must be at least 100ms');
    }
    if (options.abandonAfterMs > 0 && options.abandonAfterMs < 5 * options.pollIntervalMs) {
        throw new Error(`--abandon-after must be at least 5 poll intervals (${(5 * options.pollIntervalMs) / 1000}s): a client polling on time must never look gone`);
    }
    if (options.abandonAfterMs > 0 && options.storeUrl) {
        // Polls reach whichever replica serves them; a replica would count only those it sees.
        throw new Error('--abandon-after is not supported with --store redis');
    }
    if (options.defaultTtlMs > options.maxTtlMs) {
        throw new Error('--default-ttl must not exceed --max-ttl');
    }
    return options;
}

/** undefined for the in-memory store, else a validated redis:// or rediss:// URL. */
function parseStore(text: string | undefined): string | undefined {
    const value = text?.trim();
    if (!value || value === 'memory') {
        return undefined;
    }
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        throw new Error(`--store: "${value}" must be memory or redis://HOST:PORT[/DB]`);
    }
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname || (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname))) {
        throw new Error(`--store: "${url.protocol}//${url.host}${url.pathname}" must be memory or redis://HOST:PORT[/DB]`);
    }
    return value;
}
