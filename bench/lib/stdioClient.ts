// A newline-delimited JSON-RPC client over a child process's stdin/stdout, for the stdio figures.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PROTOCOL_2025, RpcFailure, Encoder2026, type RpcResponse } from './httpClient.js';

interface Waiter {
    resolve(result: Record<string, unknown>): void;
    reject(err: Error): void;
}

export class StdioMcpClient {
    readonly proc: ChildProcessWithoutNullStreams;
    private nextId = 1;
    private readonly waiting = new Map<number, Waiter>();
    private buffered = '';
    private exited?: Error;
    notifications = 0;
    /** Set for a 2026-07-28 client: no initialize, `_meta` on every request. */
    stateless?: Encoder2026;

    constructor(command: string, args: string[], env: NodeJS.ProcessEnv, onStderr?: (text: string) => void) {
        this.proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
        this.proc.stdout.setEncoding('utf8');
        this.proc.stdout.on('data', (chunk: string) => this.onData(chunk));
        this.proc.stderr.setEncoding('utf8');
        this.proc.stderr.on('data', (chunk: string) => onStderr?.(chunk));
        this.proc.stdin.on('error', () => undefined);
        this.proc.once('exit', code => {
            this.exited = new Error(`stdio server exited (${code})`);
            for (const waiter of this.waiting.values()) {
                waiter.reject(this.exited);
            }
            this.waiting.clear();
        });
    }

    get pid(): number {
        return this.proc.pid!;
    }

    async initialize(capabilities: Record<string, unknown> = {}): Promise<void> {
        await this.call('initialize', { protocolVersion: PROTOCOL_2025, capabilities, clientInfo: { name: 'mcp-tasks-bench', version: '1' } });
        this.proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    }

    callRaw(method: string, paramsJson: string): Promise<Record<string, unknown>> {
        if (this.exited) {
            return Promise.reject(this.exited);
        }
        const id = this.nextId++;
        if (this.stateless) {
            paramsJson = this.stateless.encode(method, paramsJson).params;
        }
        return new Promise((resolve, reject) => {
            this.waiting.set(id, { resolve, reject });
            this.proc.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsJson}}\n`);
        });
    }

    call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
        return this.callRaw(method, JSON.stringify(params));
    }

    /** Ends stdin and waits for the process (killing it after `graceMs`). */
    async close(graceMs = 3000): Promise<void> {
        if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
            return;
        }
        const exited = new Promise<void>(resolve => this.proc.once('exit', () => resolve()));
        this.proc.stdin.end();
        const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
    }

    private onData(chunk: string): void {
        this.buffered += chunk;
        let start = 0;
        let newline = this.buffered.indexOf('\n');
        while (newline >= 0) {
            const line = this.buffered.slice(start, newline);
            start = newline + 1;
            newline = this.buffered.indexOf('\n', start);
            if (line.length === 0) {
                continue;
            }
            const message = JSON.parse(line) as RpcResponse;
            if (typeof message.id === 'number' && message.method === undefined) {
                const waiter = this.waiting.get(message.id);
                if (waiter) {
                    this.waiting.delete(message.id);
                    if (message.error) {
                        waiter.reject(new RpcFailure(message.error.code, message.error.message));
                    } else {
                        waiter.resolve(message.result ?? {});
                    }
                }
            } else {
                this.notifications++;
            }
        }
        this.buffered = this.buffered.slice(start);
    }
}
