import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { DEFAULT_LIMITS } from './server.js';

export interface CliOptions {
    transport: 'stdio' | 'http';
    host: string;
    port: number;
    token?: string;
    ownerToken?: string;
    defaultTtlMs: number;
    maxTtlMs: number;
    maxTasksPerClient: number;
    pollIntervalMs: number;
    sessionIdleMs: number;
    bodyLimitBytes: number;
    allowRemote: boolean;
    ownerAnnounce?: string;
    exitWithStdin: boolean;
    logLevel: LogLevel;
    help: boolean;
    version: boolean;
}

export const HELP = `Usage: mcp-tasks [--stdio | --http] [options]

An MCP server implementing MCP Tasks v1 (protocol 2025-11-25): task-augmented tools with
tasks/get, tasks/result, tasks/list, tasks/cancel, progress and status notifications.

Transport:
  --stdio                      Speak MCP on stdin/stdout (the default). Logs go to stderr.
  --http                       Serve Streamable HTTP at http://HOST:PORT/mcp. Once listening,
                               prints one JSON line {"url": "..."} to stdout.
  --host HOST                  Address to bind (default 127.0.0.1). Non-loopback addresses are
                               refused unless --allow-remote and --token are given.
  --port PORT                  Port to bind (default 8080; 0 picks a free port).
  --token SECRET               Require "Authorization: Bearer SECRET" on every HTTP request
                               (env MCP_TASKS_TOKEN). Without it any local process may connect.
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

Tasks:
  --default-ttl DUR            Retention of a task when the client asks none (default 1h).
                               VS Code never asks and gives up at receipt + ttl, so keep it long.
  --max-ttl DUR                Upper bound applied to client-requested ttl (default 24h).
  --max-tasks-per-client N     Live (non-terminal) tasks one client may hold (default 1000).
  --poll-interval DUR          pollInterval suggested to clients (default 1s).

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
            token: { type: 'string' },
            'owner-token': { type: 'string' },
            'allow-remote': { type: 'boolean' },
            'owner-announce': { type: 'string' },
            'exit-with-stdin': { type: 'boolean' },
            'session-idle-timeout': { type: 'string' },
            'body-limit': { type: 'string' },
            'default-ttl': { type: 'string' },
            'max-ttl': { type: 'string' },
            'max-tasks-per-client': { type: 'string' },
            'poll-interval': { type: 'string' },
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
    const token = values.token ?? (env.MCP_TASKS_TOKEN || undefined);
    const ownerToken = values['owner-token'] ?? (env.MCP_TASKS_OWNER_TOKEN || undefined);
    if (token && ownerToken && token === ownerToken) {
        throw new Error('--owner-token must differ from --token');
    }
    const options: CliOptions = {
        transport: values.http ? 'http' : 'stdio',
        host: values.host ?? '127.0.0.1',
        port,
        token,
        ownerToken,
        allowRemote: values['allow-remote'] ?? false,
        ownerAnnounce: values['owner-announce'] ?? (env.MCP_TASKS_OWNER_ANNOUNCE || undefined),
        exitWithStdin: values['exit-with-stdin'] ?? false,
        sessionIdleMs: parseDuration(values['session-idle-timeout'] ?? '30m', '--session-idle-timeout'),
        bodyLimitBytes: parseCount(values['body-limit'] ?? String(4 * 1024 * 1024), '--body-limit', 1024),
        defaultTtlMs: parseDuration(values['default-ttl'] ?? `${DEFAULT_LIMITS.defaultTtlMs}`, '--default-ttl'),
        maxTtlMs: parseDuration(values['max-ttl'] ?? `${DEFAULT_LIMITS.maxTtlMs}`, '--max-ttl'),
        maxTasksPerClient: parseCount(values['max-tasks-per-client'] ?? String(DEFAULT_LIMITS.maxTasksPerClient), '--max-tasks-per-client', 1),
        pollIntervalMs: parseDuration(values['poll-interval'] ?? `${DEFAULT_LIMITS.pollIntervalMs}`, '--poll-interval'),
        logLevel,
        help: values.help ?? false,
        version: values.version ?? false,
    };
    if (options.ownerAnnounce && !options.ownerToken) {
        throw new Error('--owner-announce requires --owner-token (or MCP_TASKS_OWNER_TOKEN)');
    }
    if (options.allowRemote && !options.token) {
        throw new Error('--allow-remote requires --token');
    }
    if (options.defaultTtlMs > options.maxTtlMs) {
        throw new Error('--default-ttl must not exceed --max-ttl');
    }
    return options;
}
