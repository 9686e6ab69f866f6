import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import type { ScopedLogger } from '../logger';
import type { Secrets } from './serverMode';

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
        createInterface({ input: child.stderr! }).on('line', line => log.info(line));
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
            child.once('exit', code => {
                clearTimeout(timer);
                reject(new Error(vscode.l10n.t('the server exited with code {0} before listening', String(code))));
            });
        });
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
