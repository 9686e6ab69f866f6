/**
 * For the reliability suites (fuzz, load, faults, idle, auth): a spawned stdio server driven line
 * by line, an RSS reader (/proc on Linux, ps on macOS, tasklist on Windows), a CPU-time reader
 * (Linux /proc: only the load suite uses it, and it runs on Linux alone), and a seeded PRNG. (Their HTTP client is rawHttp.ts.)
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { LogTail, SERVER_JS } from './helpers.js';
import type { Msg } from './rawHttp.js';
import { Changes, waitUntil } from './wait.js';

/**
 * Resident set size of a process, in bytes: /proc on Linux; elsewhere what the OS's own tool
 * reports (`ps -o rss=` in KiB on macOS, `tasklist`'s "Mem Usage" in K on Windows), so the memory
 * suites hold on the hosted matrix's macOS and Windows as well.
 */
export function rssOf(pid: number): number {
    if (process.platform === 'linux') {
        const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (!match) {
            throw new Error(`no VmRSS for ${pid}`);
        }
        return Number(match[1]) * 1024;
    }
    const kib =
        process.platform === 'win32'
            ? /"([\d.,\s]+) K"\s*$/.exec(execFileSync('tasklist', ['/FI', `PID eq ${pid}`, '/FO', 'CSV', '/NH'], { encoding: 'utf8' }).trim())?.[1]?.replace(/[^\d]/g, '')
            : execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    if (!kib || !/^\d+$/.test(kib)) {
        throw new Error(`no resident size for ${pid}`);
    }
    return Number(kib) * 1024;
}

/** CPU time (user + system) a process has used so far, in seconds (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
}

export const MiB = 1024 * 1024;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** RSS once it has stopped falling (the process's GC is done with what it freed): a sample no lower than the one half a second before. */
export function settledRss(pid: number): Promise<number> {
    let last = Infinity;
    return waitUntil(
        () => {
            const now = rssOf(pid);
            const settled = now >= last - MiB / 4;
            last = now;
            return settled ? now : undefined;
        },
        'RSS to stop falling',
        { everyMs: 500 },
    );
}

/** Samples a process's RSS at an interval and remembers the peak. */
export class RssSampler {
    peak = 0;
    private readonly timer: NodeJS.Timeout;

    constructor(
        private readonly pid: number,
        intervalMs = 200,
    ) {
        this.sample();
        this.timer = setInterval(() => this.sample(), intervalMs);
        this.timer.unref();
    }

    sample(): number {
        try {
            const rss = rssOf(this.pid);
            this.peak = Math.max(this.peak, rss);
            return rss;
        } catch {
            return 0;
        }
    }

    stop(): number {
        clearInterval(this.timer);
        return this.sample();
    }
}

/**
 * `dist/server.js --stdio` driven line by line. Responses are matched by order of arrival: a
 * caller sends one input and reads what came back. Requests from the server (elicitation,
 * sampling) go to `onServerRequest`, or are refused with -32601.
 */
export class StdioLines {
    readonly log = new LogTail();
    private readonly queue: Msg[] = [];
    private readonly rawLines: string[] = [];
    /** Fires on each response and on exit. */
    private readonly arrivals = new Changes();
    exited = false;
    onServerRequest?: (request: Msg) => void;
    onNotification?: (notification: Msg) => void;
    /** Lines of stdout that were not JSON-RPC (there must be none). */
    readonly garbage: string[] = [];

    private constructor(readonly proc: ChildProcessWithoutNullStreams) {
        this.log.attach(proc.stderr);
        proc.once('exit', () => {
            this.exited = true;
            this.arrivals.notify();
        });
        createInterface({ input: proc.stdout, crlfDelay: Infinity }).on('line', line => {
            let message: Msg;
            try {
                message = JSON.parse(line) as Msg;
            } catch {
                this.garbage.push(line);
                return;
            }
            if (typeof message.method === 'string') {
                if ('id' in message) {
                    if (this.onServerRequest) {
                        this.onServerRequest(message);
                    } else {
                        this.write({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'This client answers no requests' } });
                    }
                } else {
                    this.onNotification?.(message);
                }
                return;
            }
            this.rawLines.push(line);
            this.queue.push(message);
            this.arrivals.notify();
        });
    }

    static start(args: string[] = [], env: NodeJS.ProcessEnv = {}): StdioLines {
        return new StdioLines(spawn(process.execPath, [SERVER_JS, '--stdio', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } }));
    }

    get pid(): number {
        return this.proc.pid!;
    }

    /** Writes one line (a newline is added). */
    write(message: string | object): void {
        this.proc.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    }

    /** The next response the server writes (not a notification or request); fails when the server exits. */
    async next(timeoutMs?: number): Promise<Msg> {
        await waitUntil(
            () => {
                if (this.queue.length > 0) {
                    return true;
                }
                if (this.exited) {
                    throw new Error(`the server exited (code ${this.proc.exitCode}, signal ${this.proc.signalCode}); stderr:\n${this.log.lines.slice(-20).join('\n')}`);
                }
                return false;
            },
            'a response on stdout',
            { on: this.arrivals, timeoutMs },
        );
        return this.queue.shift()!;
    }

    /** How many responses are waiting unread. */
    get pending(): number {
        return this.queue.length;
    }

    async call(id: number | string, method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Msg> {
        this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        const response = await this.next(timeoutMs);
        if (response.id !== id) {
            throw new Error(`expected the response to ${String(id)}, got ${JSON.stringify(response).slice(0, 300)}`);
        }
        return response;
    }

    async initialize(capabilities: Record<string, unknown> = {}): Promise<void> {
        const response = await this.call('init', 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'stdio-light', version: '1' } });
        if (!response.result) {
            throw new Error(`initialize failed: ${JSON.stringify(response)}`);
        }
        this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }

    kill(): void {
        if (!this.exited) {
            this.proc.kill('SIGKILL');
        }
    }
}

/** A small deterministic PRNG (mulberry32), so load plans repeat from a seed. */
export function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
