/**
 * The soaked servers: real `dist/server.js` processes, each with the memory probe loaded, a TMPDIR
 * of its own (so its command-log folders can be counted and checked), and a tag in its environment
 * that every process it starts inherits (so a leftover one can be found after it is gone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import '../support/serverState.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LogTail, SERVER_JS } from '../support/helpers.js';
import { rssOf } from '../support/lightRpc.js';
import { descendantsOf } from '../vscode-host/proc.mjs';

const PROBE = new URL('./probe.mjs', import.meta.url).href;
const NODE_FLAGS = ['--expose-gc', '--import', PROBE];

export interface Sample {
    rss: number;
    heapUsed: number;
    /** The live heap after a forced collection, once one was asked for. */
    collectedHeap?: number;
    fds: number;
    children: number;
    /** What the server's TMPDIR holds, in bytes. */
    tmpBytes: number;
}

export interface ServerSetup {
    name: string;
    /** Flags after `--http`/`--stdio`. */
    args: string[];
    /** The soak's folder: the server's TMPDIR and probe file go there. */
    root: string;
    /** Put in the server's environment; every process it starts inherits it. */
    tag: string;
    token?: string;
}

/** One server process (and, over stdio, the one client that owns it). */
export class SoakServer {
    readonly log = new LogTail();
    readonly tmp: string;
    private readonly probeFile: string;
    private proc?: ChildProcess;
    private stdio?: { client: Client; transport: StdioClientTransport };
    url?: string;
    private port = 0;

    constructor(
        readonly setup: ServerSetup,
        readonly transport: 'http' | 'stdio',
    ) {
        this.tmp = join(setup.root, `tmp-${setup.name}`);
        this.probeFile = join(setup.root, `probe-${setup.name}.json`);
        mkdirSync(this.tmp, { recursive: true });
    }

    get pid(): number | undefined {
        return this.transport === 'http' ? this.proc?.pid : this.stdio?.transport.pid ?? undefined;
    }

    private env(): Record<string, string> {
        return { ...(process.env as Record<string, string>), TMPDIR: this.tmp, SOAK_PROBE_OUT: this.probeFile, SOAK_TAG: this.setup.tag };
    }

    /** Starts it (again, on the same port, with `args` in place of the first ones if given). */
    async start(args = this.setup.args): Promise<void> {
        if (this.transport === 'stdio') {
            const transport = new StdioClientTransport({ command: process.execPath, args: [...NODE_FLAGS, SERVER_JS, '--stdio', ...args], env: this.env(), stderr: 'pipe' });
            this.log.attach(transport.stderr as unknown as NodeJS.ReadableStream);
            const client = new Client({ name: `soak-${this.setup.name}`, version: '1' });
            await client.connect(transport);
            this.stdio = { client, transport };
            return;
        }
        const proc = spawn(process.execPath, [...NODE_FLAGS, SERVER_JS, '--http', '--port', String(this.port), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: this.env() });
        this.log.attach(proc.stderr!);
        const first = await Promise.race([
            once(createInterface({ input: proc.stdout! }), 'line').then(([line]) => line as string),
            once(proc, 'exit').then(([code]) => {
                throw new Error(`${this.setup.name} exited with ${code} before listening:\n${this.log.lines.join('\n')}`);
            }),
        ]);
        this.url = (JSON.parse(first) as { url: string }).url;
        this.port = Number(new URL(this.url).port);
        this.proc = proc;
    }

    /** A client of its own: over HTTP a new session; over stdio the one client of the process. */
    async connect(): Promise<Client> {
        if (this.transport === 'stdio') {
            return this.stdio!.client;
        }
        const client = new Client({ name: `soak-${this.setup.name}`, version: '1' });
        const headers = this.setup.token ? { authorization: `Bearer ${this.setup.token}` } : undefined;
        await client.connect(new StreamableHTTPClientTransport(new URL(this.url!), { requestInit: { headers } }));
        return client;
    }

    /** SIGKILL: no chance to clean up. */
    async kill(): Promise<void> {
        const proc = this.proc!;
        if (proc.exitCode === null && proc.signalCode === null) {
            const exited = once(proc, 'exit');
            proc.kill('SIGKILL');
            await exited;
        }
    }

    /** A clean stop: SIGTERM over HTTP, the client's close (stdin ends) over stdio. */
    async stop(): Promise<void> {
        if (this.transport === 'stdio') {
            const pid = this.pid;
            await this.stdio?.client.close();
            await exitOf(pid);
            return;
        }
        const proc = this.proc;
        if (proc && proc.exitCode === null && proc.signalCode === null) {
            const exited = once(proc, 'exit');
            proc.kill('SIGTERM');
            await exited;
        }
    }

    /** Asks the probe for the live heap after a full collection. */
    collect(): void {
        if (this.pid) {
            process.kill(this.pid, 'SIGUSR2');
        }
    }

    sample(): Sample | undefined {
        const pid = this.pid;
        if (!pid) {
            return undefined;
        }
        try {
            const probe = JSON.parse(readFileSync(this.probeFile, 'utf8')) as { heapUsed: number; collectedHeap?: number };
            return {
                rss: rssOf(pid),
                heapUsed: probe.heapUsed,
                collectedHeap: probe.collectedHeap,
                fds: readdirSync(`/proc/${pid}/fd`).length,
                children: descendantsOf(pid).length,
                tmpBytes: sizeOf(this.tmp),
            };
        } catch {
            return undefined;
        }
    }
}

/** Bytes under `path` (files only), 0 when it is gone. */
export function sizeOf(path: string): number {
    let total = 0;
    let names: string[];
    try {
        names = readdirSync(path);
    } catch {
        return 0;
    }
    for (const name of names) {
        const full = join(path, name);
        try {
            const stat = statSync(full);
            total += stat.isDirectory() ? sizeOf(full) : stat.size;
        } catch {
            // Gone between the listing and the stat.
        }
    }
    return total;
}

/** Every file left under `path`, relative to it. */
export function filesUnder(path: string, prefix = ''): string[] {
    let names: string[];
    try {
        names = readdirSync(path);
    } catch {
        return [];
    }
    return names.flatMap(name => {
        const full = join(path, name);
        try {
            return statSync(full).isDirectory() ? [`${prefix}${name}/`, ...filesUnder(full, `${prefix}${name}/`)] : [`${prefix}${name}`];
        } catch {
            return [];
        }
    });
}

/** Processes (other than this one) whose environment carries SOAK_TAG=`tag`: what outlived its server. */
export function taggedProcesses(tag: string): number[] {
    const needle = Buffer.from(`SOAK_TAG=${tag}\0`);
    const found: number[] = [];
    for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name) || Number(name) === process.pid) {
            continue;
        }
        try {
            const environ = readFileSync(`/proc/${name}/environ`);
            const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
            const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
            if (state !== 'Z' && (environ.includes(needle) || environ.subarray(environ.length - needle.length + 1).equals(needle.subarray(0, -1)))) {
                found.push(Number(name));
            }
        } catch {
            // Gone, or not ours to read.
        }
    }
    return found;
}

async function exitOf(pid: number | undefined): Promise<void> {
    while (pid !== undefined) {
        try {
            process.kill(pid, 0);
        } catch {
            return;
        }
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}
