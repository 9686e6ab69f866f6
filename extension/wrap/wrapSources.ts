/**
 * The servers the extension's server wraps (`mcpTasks.wrap` and each trusted folder's
 * `.vscode/mcp-tasks.json` "wrap"), merged into the one `--wrap-config` file it is launched with
 * (no vscode import: unit-tested). Entries take VS Code's own mcp.json `servers` shape; the
 * server's own parser judges each one, so the editor and `--wrap-config` accept the same entries.
 */
import { parseWrapConfig } from '@mcp-tasks/server/wrapConfig';

export interface WrapSource {
    /** Names the source in problems: "user settings (mcpTasks.wrap)", "/ws/.vscode/mcp-tasks.json". */
    label: string;
    /** Declared by the workspace (a folder's file): needs a trusted workspace. */
    fromWorkspace: boolean;
    /** `${workspaceFolder}` and a relative `cwd`: the file's folder, or the first folder for the setting. */
    folder: string | undefined;
    /** The `servers` object as declared, or anything else (reported). */
    servers: unknown;
}

/** What `${…}` may name, as VS Code's mcp.json resolves it. */
export interface WrapVariables {
    userHome: string;
    env: Readonly<Record<string, string | undefined>>;
    pathSeparator: string;
}

export interface WrapProblem {
    /** The source's label. */
    source: string;
    /** The server entry's name, when the problem is one entry's. */
    entry?: string;
    /** What is wrong, in plain words. */
    message: string;
}

export interface MergedWrap {
    /** `{"servers": {...}}` for --wrap-config; undefined when nothing is wrapped. */
    text: string | undefined;
    /** Where each served entry came from, by name. */
    origins: Map<string, string>;
    problems: WrapProblem[];
}

/** Keys of VS Code's mcp.json entries that a wrapped server cannot honour: said, not silently dropped. */
const UNSUPPORTED: Record<string, string> = {
    envFile: 'put the variables in "env" instead',
    dev: 'it is for developing a server inside VS Code; leave it in mcp.json',
};

/**
 * Merges the sources in order (user setting, then folder files): a later entry of the same name
 * replaces an earlier one. A bad entry is left out with its reason; the others are still served.
 */
export function mergeWrap(sources: readonly WrapSource[], trusted: boolean, variables: WrapVariables): MergedWrap {
    const servers = new Map<string, Record<string, unknown>>();
    const origins = new Map<string, string>();
    const problems: WrapProblem[] = [];
    for (const source of sources) {
        if (source.servers === undefined || isEmptyObject(source.servers)) {
            continue;
        }
        if (typeof source.servers !== 'object' || source.servers === null || Array.isArray(source.servers)) {
            problems.push({ source: source.label, message: 'must be an object of servers, as in mcp.json: {"name": {"type": "stdio", "command": …}}' });
            continue;
        }
        if (source.fromWorkspace && !trusted) {
            problems.push({ source: source.label, message: `${Object.keys(source.servers).length} server(s) wait for workspace trust` });
            continue;
        }
        for (const [name, entry] of Object.entries(source.servers)) {
            const checked = checkEntry(name, entry, source, variables);
            if (typeof checked === 'string') {
                problems.push({ source: source.label, entry: name, message: checked });
                continue;
            }
            if (origins.has(name)) {
                problems.push({ source: source.label, entry: name, message: `replaces the server of that name from ${origins.get(name)}` });
            }
            servers.set(name, checked);
            origins.set(name, source.label);
        }
    }
    const text = servers.size === 0 ? undefined : JSON.stringify({ servers: Object.fromEntries(servers) }, null, 2) + '\n';
    return { text, origins, problems };
}

/** The entry with its variables expanded and its cwd made absolute, or what is wrong with it. */
function checkEntry(name: string, entry: unknown, source: WrapSource, variables: WrapVariables): Record<string, unknown> | string {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        return 'must be an object with "command" (a program speaking MCP on stdio) or "url" (a Streamable HTTP endpoint)';
    }
    const unsupported = Object.keys(entry).find(key => key in UNSUPPORTED);
    if (unsupported) {
        return `"${unsupported}" is not supported here: ${UNSUPPORTED[unsupported]}`;
    }
    let expanded: Record<string, unknown>;
    try {
        expanded = expandEntry(entry as Record<string, unknown>, source.folder, variables);
    } catch (err) {
        return (err as Error).message;
    }
    try {
        // The server's parser, on a one-server config: what it accepts, the launch accepts.
        const [spec] = parseWrapConfig({ servers: { [name]: expanded } }, '', source.folder ?? variables.userHome);
        return spec!.kind === 'stdio' && spec!.cwd !== undefined ? { ...expanded, cwd: spec!.cwd } : expanded;
    } catch (err) {
        return (err as Error).message.replace(/^: server "[^"]*"(: | )?/, '');
    }
}

/** Expands `${…}` in every string of the entry but its `sync` list (tool names). */
function expandEntry(entry: Record<string, unknown>, folder: string | undefined, variables: WrapVariables): Record<string, unknown> {
    const expand = (value: unknown): unknown => {
        if (typeof value === 'string') {
            return expandVariables(value, folder, variables);
        }
        if (Array.isArray(value)) {
            return value.map(expand);
        }
        if (typeof value === 'object' && value !== null) {
            return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item)]));
        }
        return value;
    };
    return Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, key === 'sync' ? value : expand(value)]));
}

/**
 * `${workspaceFolder}`, `${userHome}`, `${env:NAME}` (empty when unset), `${pathSeparator}` and
 * `${/}`, as VS Code's mcp.json resolves them; any other variable (`${input:…}` asks the user,
 * which a launch cannot) is refused with its name.
 */
export function expandVariables(text: string, folder: string | undefined, variables: WrapVariables): string {
    return text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
        if (name === 'workspaceFolder') {
            if (folder === undefined) {
                throw new Error(`${whole} needs an open workspace folder`);
            }
            return folder;
        }
        if (name === 'userHome') {
            return variables.userHome;
        }
        if (name === 'pathSeparator' || name === '/') {
            return variables.pathSeparator;
        }
        if (name.startsWith('env:')) {
            return variables.env[name.slice(4)] ?? '';
        }
        throw new Error(`${whole} is not supported here (only \${workspaceFolder}, \${userHome}, \${env:NAME} and \${pathSeparator}); write the value itself`);
    });
}

/** One line per problem, naming the entry: for the log and the notification. */
export function problemText(problem: WrapProblem): string {
    return problem.entry === undefined ? `${problem.source}: ${problem.message}` : `${problem.source}: server "${problem.entry}": ${problem.message}`;
}

function isEmptyObject(value: unknown): boolean {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
