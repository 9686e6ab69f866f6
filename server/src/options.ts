// The server's command line: the flags come from ./flags/table.ts; this file holds what a table
// row cannot say (which transport, checks across flags) and the usage text around the table.
import { PROTOCOL_2025 } from './contract.js';
import { helpText } from './flags/render.js';
import { parseFlags, type FlagValues } from './flags/spec.js';
import { FLAGS } from './flags/table.js';
import { downstreamSpecs, type DownstreamSpec } from './gateway/config.js';

export { parseDuration } from './flags/spec.js';

/** What users type: the package's bin (also installed as mcp-tasks-server). */
export const BIN = 'mcp-tasks';

export type CliOptions = Omit<FlagValues<typeof FLAGS>, 'bindTo' | 'storeUrl'> & {
    /** The Redis URL of --store; undefined for the other stores. */
    storeUrl?: string;
    transport: 'stdio' | 'http';
    /** What HTTP clients' tasks are bound to: the session (memory and sqlite default) or the bearer token (redis default). */
    bindTo: 'session' | 'principal';
    /** The MCP servers to wrap (--wrap, --wrap-url, --wrap-config); empty when not a gateway. */
    wrap: DownstreamSpec[];
    /** Where tasks live (--store, sqlite by default; memory where this Node.js has no node:sqlite). */
    storeKind: 'memory' | 'sqlite' | 'redis';
};

const HEADER = `Usage: ${BIN} [--stdio | --http] [options]      (also installed as mcp-tasks-server)

An MCP server implementing MCP Tasks v1 (protocol ${PROTOCOL_2025}): task-augmented tools with
tasks/get, tasks/result, tasks/list, tasks/cancel, progress and status notifications; and, on the
same endpoint, protocol 2026-07-28 (stateless, no initialize) with the Tasks extension
(io.modelcontextprotocol/tasks): each request is served by the revision it names (docs/PROTOCOL.md).
`;

/** Each a command line that parses (a unit test checks it), and what it is for. */
export const EXAMPLES: readonly (readonly [string, string])[] = [
    [`${BIN} --stdio`, 'the demonstration tools, for a host that starts the server'],
    [`${BIN} --http --token "$TOKEN"`, 'Streamable HTTP at http://127.0.0.1:8080/mcp'],
    [`${BIN} --stdio --commands commands.json`, 'your own programs as task tools (docs/CLI.md)'],
    [`${BIN} --stdio --wrap -- npx -y @modelcontextprotocol/server-everything`, "another MCP server's tools as task tools"],
    [`${BIN} --stdio --wrap-config ~/.cursor/mcp.json`, 'every server of an mcpServers file'],
    [`${BIN} --http --store redis://127.0.0.1:6379 --token "$TOKEN"`, 'one of several replicas sharing their tasks'],
];

function examplesText(): string {
    return `Examples:\n${EXAMPLES.map(([line, what]) => `  ${line}\n      ${what}`).join('\n')}\n\n`;
}

const FOOTER = `Every flag but --help and --version may be given as its environment variable instead (a flag on
the command line wins): a switch as 1 or 0, a repeatable flag as a comma-separated list, and
MCP_TASKS_WRAP as a JSON array (["npx", "-y", "some-server"]).
Durations are a number with an optional unit: ms, s, m or h (a bare number means milliseconds),
e.g. 1500, 90s, 30m, 1h. A value that starts with "-" must be written --flag=VALUE.
`;

/** The usage text, written when asked for rather than at every start. */
export function usage(): string {
    return helpText(FLAGS, HEADER, examplesText() + FOOTER);
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
    const { values, given } = parseFlags(FLAGS, argv, env);
    const wrap = downstreamSpecs({ command: values.wrapCommand.length > 0 ? values.wrapCommand : undefined, url: values.wrapUrl, headers: values.wrapHeaders, configFile: values.wrapConfig, cancelRestart: values.wrapCancelRestart });
    const storeKind = values.storeUrl === 'sqlite' || values.storeUrl === 'memory' ? values.storeUrl : 'redis';
    const options: CliOptions = {
        ...values,
        storeUrl: storeKind === 'redis' ? values.storeUrl : undefined,
        storeKind,
        transport: values.http ? 'http' : 'stdio',
        bindTo: values.bindTo ?? (storeKind === 'redis' ? 'principal' : 'session'),
        wrap,
        // A gateway serves the wrapped servers' tools: the demonstrations would only be in the way.
        demoTools: values.demoTools && wrap.length === 0,
    };
    if (options.ownerToken && options.tokens.includes(options.ownerToken)) {
        throw new Error('--owner-token must differ from --token');
    }
    if (options.ownerAnnounce && !options.ownerToken) {
        throw new Error('--owner-announce requires --owner-token (or MCP_TASKS_OWNER_TOKEN)');
    }
    if (options.allowRemote && options.tokens.length === 0) {
        throw new Error('--allow-remote requires --token');
    }
    if (options.transport === 'http' && options.bindTo === 'principal' && options.tokens.length === 0) {
        throw new Error(
            (given.has('bind') ? '--bind principal' : "--store redis binds each client's tasks to its bearer token (so any replica can serve them) and") +
                ' requires --token: give each client its own --token, or pass --bind session to keep tasks on the HTTP session of one replica',
        );
    }
    if (options.abandonAfterMs > 0 && options.abandonAfterMs < 5 * options.pollIntervalMs) {
        throw new Error(`--abandon-after must be at least 5 poll intervals (${(5 * options.pollIntervalMs) / 1000}s): a client polling on time must never look gone`);
    }
    if (options.stoppedWaiting !== 'off' && options.storeUrl) {
        throw new Error('--stopped-waiting is not supported with --store redis');
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
