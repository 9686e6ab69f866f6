// Every flag of the server's command line, once: its name, value, default, environment variable
// (MCP_TASKS_<NAME>, derived), help text and group. --help, the parser (../options.ts), the
// defaults, docs/CLI.md's tables (`npm run docs:cli`) and the extension's launch arguments all
// come from here. To add a flag, add a row, then read it in ../options.ts or ../cli.ts.
import { DEFAULT_CONNECTION_LIMITS, DEFAULT_DEFER_AFTER_MS, DEFAULT_LIMITS, DEFAULT_LOG_LIMIT_BYTES, DEFAULT_MAX_COMMAND_PROCESSES, DEFAULT_SESSION_LIMITS } from '../defaults.js';
import { LOG_LEVELS } from '../util/log.js';
import { formatDuration, type Flag } from './spec.js';
import { MAX_CANCEL_RESTART_SECONDS } from '../gateway/config.js';


export const FLAGS = [
    // Transport
    {
        name: 'stdio',
        key: 'stdio',
        type: 'switch',
        group: 'Transport',
        oneOf: 'transport',
        shownDefault: '(the default)',
        help: 'Speak MCP on stdin/stdout; nothing but protocol frames on stdout, logs on stderr. The server stops when stdin closes.',
    },
    {
        name: 'http',
        key: 'http',
        type: 'switch',
        group: 'Transport',
        oneOf: 'transport',
        help: 'Serve Streamable HTTP at `http://HOST:PORT/mcp`. Once listening, prints one JSON line `{"url": …}` to stdout.',
        docs: 'POST, GET (SSE stream) and DELETE; sessions via `Mcp-Session-Id`.',
    },
    {
        name: 'host',
        key: 'host',
        type: 'string',
        arg: 'HOST',
        default: '127.0.0.1',
        group: 'Transport',
        help: 'Address to bind. A non-loopback address is refused unless `--allow-remote` and `--token` are given.',
    },
    { name: 'port', key: 'port', type: 'count', arg: 'PORT', default: 8080, min: 0, max: 65535, group: 'Transport', help: 'Port to bind; `0` picks a free port.' },
    {
        name: 'token',
        key: 'tokens',
        type: 'list',
        arg: 'SECRET',
        group: 'Transport',
        help:
            'Require `Authorization: Bearer SECRET` on every HTTP request (constant-time compare), else 401. Without it any local process may connect. ' +
            'Repeat it (or list several, comma-separated, in the variable) to admit several clients, each token a distinct identity. ' +
            'A secret that starts with `-` must be written `--token=SECRET`.',
    },
    {
        name: 'owner-token',
        key: 'ownerToken',
        type: 'string',
        arg: 'SECRET',
        group: 'Transport',
        help: "A second, distinct credential that sees and cancels every client's tasks (the editor's view); must differ from every `--token`. Never give it to clients.",
    },
    {
        name: 'lost-tasks',
        key: 'lostTasks',
        type: 'string',
        arg: 'JSON',
        group: 'Transport',
        help:
            'Task ids a previous server process lost in a crash, as a JSON array of `{"taskId","toolName"}` (the editor sets it when it restarts the server): ' +
            'a client still waiting on one reads it as failed, with words that say to call the tool again, instead of not found.',
    },
    {
        name: 'allow-remote',
        key: 'allowRemote',
        type: 'switch',
        group: 'Transport',
        help: 'Permit a non-loopback `--host` (requires `--token`) and skip the Host-header check; Origin is still checked.',
    },
    {
        name: 'owner-announce',
        key: 'ownerAnnounce',
        type: 'string',
        arg: 'FILE',
        group: 'Transport',
        help:
            'stdio mode: also serve an owner-only endpoint on 127.0.0.1 (a free port; requires `--owner-token`) and write `{"url","pid"}` to FILE ' +
            '(mode 0600, written exclusively without following links), so the launching editor can watch every task.',
        docs: "FILE's directory must be private to this user.",
    },
    {
        name: 'exit-with-stdin',
        key: 'exitWithStdin',
        type: 'switch',
        group: 'Transport',
        help: 'http mode: exit when stdin closes, so a parent that dies never leaves the server behind.',
    },
    {
        name: 'session-idle-timeout',
        key: 'sessionIdleMs',
        type: 'duration',
        arg: 'DUR',
        default: 30 * 60_000,
        group: 'Transport',
        help: 'Close HTTP sessions with no request and no open stream this long.',
    },
    {
        name: 'body-limit',
        key: 'bodyLimitBytes',
        type: 'count',
        arg: 'BYTES',
        default: 4 * 1024 * 1024,
        min: 1024,
        shownDefault: '4194304 (4 MiB)',
        group: 'Transport',
        help: 'Largest accepted HTTP body or stdio line; at least 1024.',
    },
    {
        name: 'max-connections',
        key: 'maxConnections',
        type: 'count',
        arg: 'N',
        default: DEFAULT_CONNECTION_LIMITS.maxConnections,
        min: 1,
        group: 'Transport',
        help:
            'HTTP connections open at once (keep it well under `ulimit -n`). A connection must send an authenticated request within 5 s or is cut, ' +
            'and at the cap a new one displaces the oldest that has not, so peers without a token cannot lock clients out. ' +
            'A body must arrive whole within 10 s of its headers; requests not received within 30 s and keep-alive connections idle 5 s are closed.',
        docs: 'See [SECURITY.md](../SECURITY.md#limits-enforced).',
    },
    {
        name: 'max-pending-bodies',
        key: 'maxPendingBodies',
        type: 'count',
        arg: 'N',
        default: DEFAULT_CONNECTION_LIMITS.maxPendingBodies,
        min: 1,
        group: 'Transport',
        help:
            'HTTP requests of one client credential (a `--token`, or all callers without one together) whose body is still arriving, and never more than half of `--max-connections`; ' +
            'one more is answered 429 unread and its connection closed, so a client trickling bodies cannot fill the connections. The owner is not limited.',
        docs: 'See [SECURITY.md](../SECURITY.md#limits-enforced).',
    },
    {
        name: 'max-sessions',
        key: 'maxSessions',
        type: 'count',
        arg: 'N',
        default: DEFAULT_SESSION_LIMITS.maxSessions,
        min: 1,
        group: 'Transport',
        help:
            'HTTP sessions (protocol 2025-11-25) one client credential may hold open: each `--token`, or all callers without one together; the owner is not limited. ' +
            "At the cap an `initialize` closes that credential's least recently active session with no request in flight and no open GET stream " +
            '(its running tasks are cancelled, as for an idle session); with none such it is refused with 429.',
        docs: 'See [SECURITY.md](../SECURITY.md#limits-enforced).',
    },
    {
        name: 'session-rate',
        key: 'sessionsPerMinute',
        type: 'count',
        arg: 'N',
        default: DEFAULT_SESSION_LIMITS.sessionsPerMinute,
        min: 1,
        group: 'Transport',
        help:
            'New HTTP sessions one client credential may open a minute, refilled evenly (N at once after a quiet minute); ' +
            'beyond it `initialize` is answered 429 with `Retry-After`. The owner is not limited.',
    },

    // Tasks
    {
        name: 'store',
        key: 'storeUrl',
        type: 'string',
        arg: 'URL',
        default: 'sqlite',
        parse: parseStore,
        group: 'Tasks',
        help:
            "Where tasks live: `sqlite`, a file in the data folder (--data-dir) that keeps finished tasks and their results across restarts until their TTL (needs a Node.js with node:sqlite, 22.13 or later; on one without, such as Node.js 20, the server says so in one line and keeps tasks in memory); " +
            "`memory`, this process's memory only; " +
            'or `redis://HOST:PORT[/DB]` (`rediss://` for TLS, `redis://:PASSWORD@HOST…`). ' +
            'With Redis, several replicas share tasks, results, cancellation and notifications. Installed from npm, it needs the optional `redis` package beside it.',
        docs: 'See [DEPLOYMENT.md](DEPLOYMENT.md).',
    },
    {
        name: 'data-dir',
        key: 'dataDir',
        type: 'string',
        arg: 'DIR',
        shownDefault: '$XDG_STATE_HOME/mcp-tasks (~/.local/state/mcp-tasks); macOS ~/Library/Application Support/mcp-tasks; Windows %LOCALAPPDATA%\\mcp-tasks',
        group: 'Tasks',
        help: 'The folder of the file the `sqlite` store (the default) keeps tasks in (`tasks.db`, readable by this user only). Servers sharing a folder never list each other\'s tasks.',
    },
    {
        name: 'store-prefix',
        key: 'storePrefix',
        type: 'string',
        arg: 'PREFIX',
        default: 'mcp-tasks:',
        group: 'Tasks',
        help: 'Namespace of every Redis key and of the event channel, so deployments can share one Redis.',
    },
    {
        name: 'worker-lease',
        key: 'workerLeaseMs',
        type: 'duration',
        arg: 'DUR',
        default: 10_000,
        min: 100,
        group: 'Tasks',
        help: 'Redis: a replica that has not renewed its lease for this long is lost and its running tasks fail; at least `100ms`.',
    },
    {
        name: 'worker-id',
        key: 'workerId',
        type: 'string',
        arg: 'ID',
        shownDefault: 'HOST:PID:RANDOM',
        parse: parseWorkerId,
        group: 'Tasks',
        help: "Redis: this replica's name in the owner's view, logs and the lost-replica message; 1 to 100 printable characters, no spaces.",
    },
    {
        name: 'bind',
        key: 'bindTo',
        type: 'choice',
        arg: 'session|principal',
        choices: ['session', 'principal'],
        shownDefault: '`session` (memory), `principal` (redis)',
        group: 'Tasks',
        help:
            "What an HTTP client's tasks are bound to: its HTTP session (closing it cancels them), or its bearer token " +
            '(any session or replica with the same token reaches them; requires `--token`).',
    },
    {
        name: 'default-ttl',
        key: 'defaultTtlMs',
        type: 'duration',
        arg: 'DUR',
        default: DEFAULT_LIMITS.defaultTtlMs,
        group: 'Tasks',
        help: 'Retention of a task when the client asks none; must not exceed `--max-ttl`. VS Code never asks and gives up at receipt + TTL, so keep it long.',
    },
    {
        name: 'max-ttl',
        key: 'maxTtlMs',
        type: 'duration',
        arg: 'DUR',
        default: DEFAULT_LIMITS.maxTtlMs,
        group: 'Tasks',
        help: 'Upper bound applied to client-requested TTLs.',
    },
    {
        name: 'max-tasks-per-client',
        key: 'maxTasksPerClient',
        type: 'count',
        arg: 'N',
        default: DEFAULT_LIMITS.maxTasksPerClient,
        min: 1,
        group: 'Tasks',
        help: 'Live (non-terminal) tasks one client may hold.',
    },
    {
        name: 'max-retained-tasks-per-client',
        key: 'maxRetainedTasksPerClient',
        type: 'count',
        arg: 'N',
        default: DEFAULT_LIMITS.maxRetainedTasksPerClient,
        min: 1,
        group: 'Tasks',
        help: 'Tasks one client may hold, finished ones included until their TTL runs out; beyond it `tools/call` with `task` answers -32000 naming this limit.',
    },
    {
        name: 'max-retained-bytes-per-client',
        key: 'maxRetainedBytesPerClient',
        type: 'count',
        arg: 'BYTES',
        default: DEFAULT_LIMITS.maxRetainedBytesPerClient,
        min: 1024,
        shownDefault: '67108864 (64 MiB)',
        group: 'Tasks',
        help:
            "What one client's tasks may hold together (arguments, progress tokens, results, as JSON); -32000 naming this limit beyond it. " +
            'Tasks of HTTP sessions that ended (only the owner still sees them) share one such budget, the oldest deleted first.',
        docs: "With `--store redis://…` both retained limits, and the ended sessions' budget, hold across replicas.",
    },
    {
        name: 'poll-interval',
        key: 'pollIntervalMs',
        type: 'duration',
        arg: 'DUR',
        default: DEFAULT_LIMITS.pollIntervalMs,
        group: 'Tasks',
        help: '`pollInterval` suggested to clients.',
    },
    {
        name: 'abandon-after',
        key: 'abandonAfterMs',
        type: 'duration',
        arg: 'DUR',
        default: DEFAULT_LIMITS.abandonAfterMs,
        off: true,
        group: 'Tasks',
        help:
            'Cancel the task of a task-augmented `tools/call` once its client has stopped following it: no `tasks/get`, no waiting `tasks/result` ' +
            '(nor, for a 2026-07-28 client, an open `subscriptions/listen` naming it) for DUR; at least 5 poll intervals. ' +
            'VS Code, which polls but never cancels, leaves tasks running when a chat is stopped, so the extension turns it on. ' +
            "Background tasks (`start_<tool>`) and the owner's view are not counted. " +
            'Time the server itself could not run (its sweep came late: a burst of work, a loaded machine) is not counted against the client. Not with `--store redis`.',
    },
    {
        name: 'stopped-waiting',
        key: 'stoppedWaiting',
        type: 'choice',
        arg: 'off|keep|cancel',
        choices: ['off', 'keep', 'cancel'],
        default: DEFAULT_LIMITS.stoppedWaiting,
        group: 'Tasks',
        help:
            'What happens to the task of a task-augmented `tools/call` once its client stops polling it (no `tasks/get`, no waiting `tasks/result`): ' +
            "VS Code sends nothing when a chat request is stopped, its polls just end. After 4 missed polls the task is marked in the owner's view (cleared if polls resume); " +
            '`cancel` also cancels it after 10 missed polls (a busy editor can stall its polls for seconds), `keep` leaves it running until it finishes, ' +
            'the owner cancels it or `--abandon-after` (if set) ends it; `off`: not watched. Background tasks are not counted. Not with `--store redis`.',
    },
    {
        name: 'no-task-tools',
        key: 'taskTools',
        type: 'off',
        group: 'Tasks',
        help:
            'Do not offer the task tools. By default every task-capable tool X also gets a plain tool `start_X` (same arguments and annotations) ' +
            'that starts it in the background, plus `get_task` (status, latest message, result; can wait for the end as long as `--defer-after`, 50 s by default), `cancel_task`, `list_tasks` ' +
            'and, with command tools, `read_output`, ' +
            'so models in hosts that never send `task` (Claude Code, Cursor, Codex) can use them.',
    },
    {
        name: 'no-session-protocol',
        key: 'sessionProtocol',
        type: 'off',
        group: 'Tasks',
        help: 'Refuse protocol 2025-11-25 (`initialize` first): speak 2026-07-28 only. For testing.',
    },
    {
        name: 'conformance-fixtures',
        key: 'conformanceFixtures',
        type: 'switch',
        group: 'Tasks',
        help:
            'Also serve the fixture tools the official MCP conformance suite (`@modelcontextprotocol/conformance`) calls, for both revisions: `test_*`, ' +
            '`protocol_error_job`, `multi_input`, `test_tool_with_task`, `json_schema_2020_12_tool`, listed first. For testing only; they are never in the default tool list.',
        docs:
            'The `test_*` tools cover content, progress, tool-list change, `test_sampling`, `test_elicitation`, `test_elicitation_sep1034_defaults`, ' +
            '`test_elicitation_sep1330_enums`, `test_reconnection` and the multi round-trip ones; none for resources, prompts, completion or logging, which the server does not offer.',
    },
    {
        name: 'no-demo-tools',
        key: 'demoTools',
        type: 'off',
        group: 'Tasks',
        help:
            'Do not serve the demonstration tools (`greet`, `slow_compute`, `failing_job`, `confirm_delete`, `write_haiku`, `external_job`, `deploy`), ' +
            'which do no real work; with `--commands` only the command tools (and their task tools) are offered.',
    },

    // Commands
    {
        name: 'commands',
        key: 'commandsFile',
        type: 'string',
        arg: 'FILE',
        group: 'Commands',
        help:
            'Serve the command tools FILE declares (JSON: `{"tools": [...]}`, see docs/CLI.md): each runs a program with typed parameters as whole arguments, ' +
            'in its own process group, cancellable. FILE is watched; a good edit replaces the tools and sends `notifications/tools/list_changed`, ' +
            'a broken one is logged and the last good set kept.',
    },
    {
        name: 'commands-log-dir',
        key: 'commandsLogDir',
        type: 'string',
        arg: 'DIR',
        shownDefault: 'a fresh private temp folder, removed on exit',
        group: 'Commands',
        help: "Where each command run's full output (secrets redacted) is written; a log is deleted when its task expires.",
    },
    {
        name: 'commands-log-limit',
        key: 'commandsLogLimitBytes',
        type: 'count',
        arg: 'BYTES',
        default: DEFAULT_LOG_LIMIT_BYTES,
        min: 1024 * 1024,
        shownDefault: '1073741824 (1 GiB)',
        group: 'Commands',
        help: 'What the command logs may hold together; beyond it the oldest logs of ended runs are cut to their first and last lines (64 KiB each; a log is deleted only when its task expires); at least 1 MiB. A running command\'s own log is held within it too: its middle is left out, one line saying what went.',
    },
    {
        name: 'commands-reattach-window',
        key: 'commandsReattachMs',
        type: 'duration',
        arg: 'DUR',
        default: 10 * 60 * 1000,
        off: true,
        group: 'Commands',
        help:
            'With the `sqlite` store, on Linux and macOS: a command running as a task outlives its server (an exit, a crash, a restart) and the next server on the same data folder takes it over, with its output and exit status; ' +
            'if none does within DUR of its server ending, it is stopped. `off`: command tasks stop with their server.',
    },
    {
        name: 'max-command-processes',
        key: 'maxCommandProcesses',
        type: 'count',
        arg: 'N',
        default: DEFAULT_MAX_COMMAND_PROCESSES,
        min: 1,
        group: 'Commands',
        help: 'Command runs at once, all commands and clients together; further calls wait their turn (the task says `Queued: …`). Runs start a few per event-loop turn, so a burst of starts leaves other requests answered between them.',
    },

    // Gateway (docs/GATEWAY.md): other MCP servers' tools served as task tools
    {
        name: 'wrap',
        key: 'wrapCommand',
        type: 'command',
        group: 'Gateway',
        help:
            'Start PROGRAM (an MCP server on stdio) with the server and serve its tools as task tools, and its prompts, resources, completions and logging as they are (docs/GATEWAY.md); ' +
            'everything after `--` is its command line. Its stderr goes to our log, prefixed `[name]`; it is restarted with backoff (1 s doubling to 30 s) if it dies. Turns the demonstration tools off.',
    },
    {
        name: 'wrap-cancel-restart',
        key: 'wrapCancelRestart',
        type: 'count',
        arg: 'SECONDS',
        default: 0,
        min: 0,
        max: MAX_CANCEL_RESTART_SECONDS,
        shownDefault: '0 (off)',
        group: 'Gateway',
        help:
            'For `--wrap`: when a plain call it runs is cancelled and has not ended SECONDS later (the server ignored the cancel), restart the server to stop it. ' +
            'Every other call running on it then fails, saying the server was restarted to stop a call that ignored its cancel. `0`: never (a server that ignores a cancel runs the call to its end).',
    },
    { name: 'wrap-url', key: 'wrapUrl', type: 'string', arg: 'URL', group: 'Gateway', help: 'Wrap the Streamable HTTP MCP server at URL.' },
    { name: 'wrap-header', key: 'wrapHeaders', type: 'list', arg: '"Name: value"', separator: '\n', keepDuplicates: true, group: 'Gateway', help: 'A header sent with every request to `--wrap-url`; repeatable.' },
    {
        name: 'wrap-config',
        key: 'wrapConfig',
        type: 'string',
        arg: 'FILE',
        group: 'Gateway',
        help:
            'Wrap every server of FILE, in the `mcpServers` shape of Claude Desktop, Cursor and `.mcp.json` (`command`/`args`/`env`/`cwd`, or `url`/`headers`; ' +
            "VS Code's `servers`/`type` too), each with an optional `\"sync\": [\"tool\", …]` of quick tools kept plain and, for a `command` server, an optional `\"restartOnIgnoredCancel\": SECONDS` (as `--wrap-cancel-restart`). With several servers, a tool name more than one offers becomes `<server>_<tool>`.",
    },
    {
        name: 'defer-after',
        key: 'deferAfterMs',
        type: 'duration',
        arg: 'DUR',
        default: DEFAULT_DEFER_AFTER_MS,
        off: true,
        group: 'Gateway',
        help:
            'A plain `tools/call` (no `task`; from a 2026-07-28 client, one without the tasks extension) of a task-capable tool still running after DUR answers with an ordinary result saying the work goes on as task X ' +
            "(`get_task`, `cancel_task` follow it; `read_output` reads a command's log), `structuredContent` `{taskId, status, next}` " +
            "(a tool with an output schema lists it as its own or that answer, so a client's check accepts it); `0` turns it off. 50 s is under the 60 s at which Claude Code, Copilot CLI and Copilot for Eclipse give up.",
    },

    // Other
    {
        name: 'log-level',
        key: 'logLevel',
        type: 'choice',
        arg: 'LEVEL',
        choices: LOG_LEVELS,
        default: 'info',
        group: 'Other',
        help: '`error`, `warn`, `info` or `debug`; logs go to stderr.',
    },
    { name: 'version', key: 'version', type: 'switch', env: false, group: 'Other', help: 'Print the version and exit.' },
    { name: 'help', key: 'help', type: 'switch', short: 'h', env: false, group: 'Other', help: 'Print this usage and exit.' },
] as const satisfies readonly Flag[];

export type ServerFlag = (typeof FLAGS)[number];
export type FlagName = ServerFlag['name'];

export function flagNamed<N extends FlagName>(name: N): Extract<ServerFlag, { name: N }> {
    return FLAGS.find(flag => flag.name === name) as Extract<ServerFlag, { name: N }>;
}

/** The default as --help and the docs state it. */
export function shownDefault(flag: Flag): string | undefined {
    if (flag.shownDefault) {
        return flag.shownDefault;
    }
    switch (flag.type) {
        case 'duration':
            return flag.off && flag.default === 0 ? 'off' : formatDuration(flag.default);
        case 'count':
            return String(flag.default);
        case 'switch':
        case 'off':
            return flag.env === false ? undefined : 'off';
        default:
            return 'default' in flag && flag.default !== undefined ? String(flag.default) : undefined;
    }
}

/** `memory`, `sqlite`, or a validated redis:// or rediss:// URL. */
function parseStore(text: string, source: string): string {
    const value = text.trim();
    if (!value || value === 'memory') {
        return 'memory';
    }
    if (value === 'sqlite') {
        return value;
    }
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        throw new Error(`${source}: "${value}" must be memory, sqlite or redis://HOST:PORT[/DB]`);
    }
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname || (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname))) {
        throw new Error(`${source}: "${url.protocol}//${url.host}${url.pathname}" must be memory, sqlite or redis://HOST:PORT[/DB]`);
    }
    return value;
}

function parseWorkerId(text: string, source: string): string {
    if (!/^[\x21-\x7e]{1,100}$/.test(text)) {
        throw new Error(`${source}: use 1 to 100 printable characters without spaces`);
    }
    return text;
}
