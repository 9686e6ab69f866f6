import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import type { ScopedLogger } from '../logger';
import type { Secrets } from './serverMode';
import { startError, type ServerStartError } from './startFailure';

/** How many of its last stderr lines a server that fails to start is judged by. */
const STDERR_KEPT = 20;

/** Keeps the last lines a child writes to stderr, and logs each. */
function keepStderr(child: ChildProcess, log: ScopedLogger): string[] {
    const lines: string[] = [];
    createInterface({ input: child.stderr! }).on('line', line => {
        log.info(line);
        lines.push(line);
        if (lines.length > STDERR_KEPT) {
            lines.shift();
        }
    });
    return lines;
}

/** A child's exit, once its stderr is read to the end (the reason comes last). */
function exited(child: ChildProcess): Promise<number | null> {
    return new Promise(resolve => child.once('close', code => resolve(code)));
}

export interface LaunchSpec {
    command: string;
    args: string[];
    env: Record<string, string>;
    /** The credentials this process was started with (also in `env`). */
    secrets: Secrets;
}

/** One running `dist/server.js --http` child; stderr goes to the log, stdout gives the URL. */
export class ServerProcess {
    private exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
    private stopping = false;

    private constructor(
        private readonly child: ChildProcess,
        readonly url: string,
        readonly secrets: Secrets,
    ) {
        child.once('exit', (code, signal) => {
            for (const listener of this.exitListeners) {
                listener(code, signal);
            }
        });
    }

    get pid(): number | undefined {
        return this.child.pid;
    }

    get exited(): boolean {
        return this.child.exitCode !== null || this.child.signalCode !== null;
    }

    /** True once stop() was asked: an exit after that is expected, not a crash. */
    get isStopping(): boolean {
        return this.stopping;
    }

    onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
        this.exitListeners.push(listener);
    }

    static start(spec: LaunchSpec, log: ScopedLogger, timeoutMs = 15_000): Promise<ServerProcess> {
        // stdin stays a pipe: the server exits when it closes, so even a crashed editor leaves no orphan.
        const child = spawn(spec.command, spec.args, { env: { ...process.env, ...spec.env }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
        const stderr = keepStderr(child, log);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                child.kill('SIGKILL');
                reject(new Error(vscode.l10n.t('the server did not report its URL within {0} ms', timeoutMs)));
            }, timeoutMs);
            const lines = createInterface({ input: child.stdout! });
            lines.once('line', line => {
                clearTimeout(timer);
                try {
                    const url = (JSON.parse(line) as { url?: unknown }).url;
                    if (typeof url !== 'string') {
                        throw new Error('no url');
                    }
                    resolve(new ServerProcess(child, url, spec.secrets));
                } catch {
                    child.kill('SIGKILL');
                    reject(new Error(vscode.l10n.t('unexpected first line from the server: {0}', line.slice(0, 200))));
                }
            });
            child.once('error', err => {
                clearTimeout(timer);
                reject(err);
            });
            void exited(child).then(code => {
                clearTimeout(timer);
                // Settled already when it listened: then this exit is onExit's business.
                reject(startError(stderr, code, vscode.l10n.t('the server exited with code {0} before listening', String(code))));
            });
        });
    }

    /**
     * Asks the server whether it would start with `spec`'s arguments, without starting it: with --help
     * it parses and checks every flag (together: a default TTL above the maximum is refused), then only
     * prints its usage. Undefined when it would start; else its reason.
     */
    static async check(spec: Omit<LaunchSpec, 'secrets'>, log: ScopedLogger): Promise<ServerStartError | undefined> {
        const child = spawn(spec.command, [...spec.args, '--help'], { env: { ...process.env, ...spec.env }, stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
        const stderr = keepStderr(child, log);
        const code = await Promise.race([exited(child), new Promise<'error'>(resolve => child.once('error', () => resolve('error')))]);
        return code === 0 || code === 'error' ? undefined : startError(stderr, code, vscode.l10n.t('the server exited with code {0} before listening', String(code)));
    }

    /** SIGTERM (the server cancels its tasks and exits), then SIGKILL if it lingers. */
    stop(graceMs = 3000): Promise<void> {
        this.stopping = true;
        if (this.exited) {
            return Promise.resolve();
        }
        return new Promise(resolve => {
            const kill = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
            this.child.once('exit', () => {
                clearTimeout(kill);
                resolve();
            });
            this.child.stdin?.end();
            this.child.kill('SIGTERM');
        });
    }
}
