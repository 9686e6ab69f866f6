import { readFileSync } from 'node:fs';
import { cannotRead } from '../util/files.js';
import { basename, dirname, resolve } from 'node:path';

/** One MCP server the gateway wraps: a program it starts (stdio) or an endpoint it calls (Streamable HTTP). */
export type DownstreamSpec = StdioSpec | HttpSpec;

interface CommonSpec {
    /** Names the server in logs and, when tool names collide, in tool names (`<name>_<tool>`). */
    name: string;
    /** Tools that stay plain (taskSupport forbidden): quick ones a host should never call as a task. */
    sync: string[];
}

export interface StdioSpec extends CommonSpec {
    kind: 'stdio';
    command: string;
    args: string[];
    env?: Record<string, string>;
    cwd?: string;
    /** Seconds a cancelled plain call may run on before the server is restarted to stop it; absent: never. */
    restartOnIgnoredCancel?: number;
}

/** The most `restartOnIgnoredCancel` (and `--wrap-cancel-restart`) may be: an hour. */
export const MAX_CANCEL_RESTART_SECONDS = 3600;

export interface HttpSpec extends CommonSpec {
    kind: 'http';
    url: string;
    headers: Record<string, string>;
}

/** What the wrap flags said, before the config file is read. */
export interface WrapFlags {
    /** `--wrap -- <command> [args…]`. */
    command?: string[];
    /** `--wrap-url URL`. */
    url?: string;
    /** `--wrap-header "Name: value"`, repeatable; for --wrap-url. */
    headers?: string[];
    /** `--wrap-config FILE`. */
    configFile?: string;
    /** `--wrap-cancel-restart SECONDS`, for the `--wrap` server; 0 or absent: off. */
    cancelRestart?: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
// RFC 9110 token characters for a header name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Every downstream the flags name, checked; throws a message that says what to fix. */
export function downstreamSpecs(flags: WrapFlags): DownstreamSpec[] {
    const specs: DownstreamSpec[] = [];
    if (flags.command) {
        const [command, ...args] = flags.command;
        if (!command) {
            throw new Error('--wrap: give the server to start after --, e.g. --wrap -- npx -y @modelcontextprotocol/server-everything');
        }
        const restart = flags.cancelRestart ? { restartOnIgnoredCancel: flags.cancelRestart } : {};
        specs.push({ kind: 'stdio', name: commandName(command, args), command, args, sync: [], ...restart });
    } else if (flags.cancelRestart) {
        throw new Error('--wrap-cancel-restart needs --wrap (a server in --wrap-config takes "restartOnIgnoredCancel": SECONDS)');
    }
    if (flags.url !== undefined) {
        specs.push({ kind: 'http', name: urlName(urlOf(flags.url, '--wrap-url')), url: flags.url, headers: parseHeaders(flags.headers ?? [], '--wrap-header'), sync: [] });
    } else if (flags.headers?.length) {
        throw new Error('--wrap-header needs --wrap-url (headers of a server in --wrap-config go in its "headers")');
    }
    if (flags.configFile) {
        specs.push(...readWrapConfig(flags.configFile));
    }
    return uniqueNames(specs);
}

/** Reads the `mcpServers` shape (Claude Desktop, Cursor, `.mcp.json`) or VS Code's `servers` shape. */
export function readWrapConfig(file: string): DownstreamSpec[] {
    let text: string;
    try {
        text = readFileSync(file, 'utf8');
    } catch (err) {
        throw new Error(`--wrap-config: ${cannotRead('the file', file, err)}`, { cause: err });
    }
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (err) {
        throw new Error(`--wrap-config: ${file} is not JSON: ${(err as Error).message}`, { cause: err });
    }
    return parseWrapConfig(json, `--wrap-config ${file}`, dirname(resolve(file)));
}

/** `where` prefixes every error; relative `cwd`s resolve against `baseDir`. */
export function parseWrapConfig(json: unknown, where: string, baseDir: string): DownstreamSpec[] {
    const root = objectOf(json, where);
    const servers = root.mcpServers ?? root.servers;
    if (servers === undefined) {
        throw new Error(`${where}: expected {"mcpServers": {"<name>": {...}}} (or VS Code's {"servers": {...}})`);
    }
    const entries = Object.entries(objectOf(servers, `${where}: mcpServers`));
    if (entries.length === 0) {
        throw new Error(`${where}: mcpServers is empty; add at least one server`);
    }
    return entries.map(([name, value]) => parseServer(name, value, `${where}: server "${name}"`, baseDir));
}

function parseServer(name: string, value: unknown, where: string, baseDir: string): DownstreamSpec {
    if (!NAME.test(name)) {
        throw new Error(`${where}: use 1 to 64 letters, digits, "_", "." or "-" for the name (it prefixes colliding tool names)`);
    }
    const entry = objectOf(value, where);
    const sync = stringList(entry.sync, `${where}: sync`);
    const type = entry.type;
    if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamableHttp'].includes(type as string)) {
        throw new Error(`${where}: type "${String(type)}" is not supported; use "stdio" (command) or "http" (url); SSE-only servers are not`);
    }
    if (typeof entry.command === 'string') {
        if (entry.url !== undefined) {
            throw new Error(`${where}: give either "command" or "url", not both`);
        }
        const env = entry.env === undefined ? undefined : stringMap(entry.env, `${where}: env`);
        const cwd = entry.cwd === undefined ? undefined : resolve(baseDir, stringOf(entry.cwd, `${where}: cwd`));
        const restart = entry.restartOnIgnoredCancel === undefined ? {} : { restartOnIgnoredCancel: cancelSeconds(entry.restartOnIgnoredCancel, `${where}: restartOnIgnoredCancel`) };
        return { kind: 'stdio', name, command: entry.command, args: stringList(entry.args, `${where}: args`), env, cwd, sync, ...restart };
    }
    if (entry.restartOnIgnoredCancel !== undefined) {
        throw new Error(`${where}: restartOnIgnoredCancel is for a server the gateway starts ("command"); it cannot restart one at a url`);
    }
    if (typeof entry.url === 'string') {
        urlOf(entry.url, `${where}: url`);
        return { kind: 'http', name, url: entry.url, headers: entry.headers === undefined ? {} : stringMap(entry.headers, `${where}: headers`), sync };
    }
    throw new Error(`${where}: needs "command" (a program speaking MCP on stdio) or "url" (a Streamable HTTP endpoint)`);
}

/** `Name: value` lines into a header map. */
export function parseHeaders(lines: readonly string[], flag: string): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const line of lines) {
        const colon = line.indexOf(':');
        const name = colon > 0 ? line.slice(0, colon).trim() : '';
        if (!HEADER_NAME.test(name) || /[\r\n]/.test(line)) {
            throw new Error(`${flag}: "${line}" must be "Name: value" (one line, a valid header name)`);
        }
        headers[name] = line.slice(colon + 1).trim();
    }
    return headers;
}

/** Two servers never share a name: the second of a pair becomes `<name>-2`, and so on. */
function uniqueNames(specs: DownstreamSpec[]): DownstreamSpec[] {
    const seen = new Set<string>();
    return specs.map(spec => {
        let name = spec.name;
        for (let n = 2; seen.has(name); n++) {
            name = `${spec.name}-${n}`;
        }
        seen.add(name);
        return { ...spec, name };
    });
}

/** Launchers whose first operand names the server better than they do (npx -y @scope/server-x → server-x). */
const LAUNCHERS = new Set(['node', 'npx', 'bunx', 'bun', 'deno', 'uvx', 'uv', 'python', 'python3', 'pipx', 'pnpm', 'yarn', 'docker']);

/** A server's name from its command line: the program, or the package or script a launcher runs. */
function commandName(command: string, args: readonly string[]): string {
    const program = basename(command).replace(/\.(exe|cmd)$/i, '');
    const operand = LAUNCHERS.has(program) ? args.find(arg => !arg.startsWith('-') && !['run', 'exec', 'dlx', 'x'].includes(arg)) : undefined;
    if (!operand) {
        return safeName(program);
    }
    // A package (@scope/name@version) or a script path (…/server-x/dist/index.js names server-x).
    const parts = operand.replace(/@[^/@]*$/, '').split(/[\\/]/).filter(part => part && !/^(dist|build|lib|src|bin|index\.[cm]?js)$/.test(part));
    return safeName((parts.at(-1) ?? program).replace(/\.[cm]?[jt]s$|\.py$/, ''));
}

/** Parts of a URL that say nothing of the server behind it. */
const GENERIC_URL_PARTS = /^(mcp|sse|api|www|v\d+|localhost|\d+)$/i;

/**
 * A --wrap-url server's name: the first host label that names something (mcp.linear.app gives
 * linear), else the last path segment that does (http://127.0.0.1:3000/tests/mcp gives tests),
 * else "http". Never the host's address: it prefixes colliding tool names, and 127.0.0.1_echo
 * says nothing to a model.
 */
function urlName(url: URL): string {
    const labels = url.hostname.startsWith('[') ? [] : url.hostname.split('.');
    // A DNS name's last label is its top-level domain.
    const hostParts = labels.length > 1 ? labels.slice(0, -1) : labels;
    const pathParts = url.pathname.split('/').reverse();
    const named = [...hostParts, ...pathParts].find(part => part !== '' && !GENERIC_URL_PARTS.test(part));
    return named ? safeName(named) : 'http';
}

function safeName(text: string): string {
    const name = text.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[_.-]+/, '').slice(0, 64);
    return name || 'server';
}

function urlOf(text: string, where: string): URL {
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        throw new Error(`${where}: "${text}" is not a URL (e.g. http://127.0.0.1:3001/mcp)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new Error(`${where}: "${text}" must be an http:// or https:// URL`);
    }
    return url;
}

/** Whole seconds, 1 to MAX_CANCEL_RESTART_SECONDS. */
function cancelSeconds(value: unknown, where: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_CANCEL_RESTART_SECONDS) {
        throw new Error(`${where}: give whole seconds from 1 to ${MAX_CANCEL_RESTART_SECONDS} (how long a cancelled call may run on before the server is restarted to stop it)`);
    }
    return value;
}

function objectOf(value: unknown, where: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Error(`${where} must be a JSON object`);
    }
    return value as Record<string, unknown>;
}

function stringOf(value: unknown, where: string): string {
    if (typeof value !== 'string') {
        throw new Error(`${where} must be a string`);
    }
    return value;
}

function stringList(value: unknown, where: string): string[] {
    if (value === undefined) {
        return [];
    }
    if (!Array.isArray(value) || !value.every(item => typeof item === 'string')) {
        throw new Error(`${where} must be a list of strings`);
    }
    return value as string[];
}

function stringMap(value: unknown, where: string): Record<string, string> {
    const map = objectOf(value, where);
    for (const [key, item] of Object.entries(map)) {
        if (typeof item !== 'string') {
            throw new Error(`${where}: "${key}" must be a string`);
        }
    }
    return map as Record<string, string>;
}
