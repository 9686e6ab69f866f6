import * as vscode from 'vscode';
import { newSecret } from '@mcp-tasks/server/contract';
import type { ExtensionConfig } from '../config';
import { SERVER_ID } from '../constants';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import { backoffDelay, httpArgs, serverEnv } from './serverArgs';
import { verifyOwnerEndpoint } from '../owner/ownerVerify';
import type { Secrets } from './serverMode';
import { ServerProcess } from './serverProcess';
import { ServerStartError } from './startFailure';
import { showServerProblem } from '../errorNotice';
import type { TaskView } from '../tasks/taskView';
import { showCrashNotice } from '../views/crashNotice';

const HEALTHY_AFTER_MS = 60_000;

/** How a crash's restart ended; a failed one is shown by startFailed. */
type CrashOutcome = 'restarted' | 'stopped';

/**
 * Owns the HTTP-mode server child of this window: starts it on demand, restarts it with backoff
 * when it dies, and stops it on dispose. One process serves VS Code's MCP client and ours. Every
 * launch gets fresh tokens, so a token sent to the port after its server died opens nothing.
 */
export class ServerHost extends Disposable {
    private current?: ServerProcess;
    private starting?: Promise<ServerProcess>;
    private attempt = 0;
    private restartTimer?: NodeJS.Timeout;
    private healthyTimer?: NodeJS.Timeout;
    private lastPort = 0;
    /** The tasks crashes took with them: every later launch names them (MCP_TASKS_LOST_TASKS), so a client still waiting on one reads why it ended. */
    private lostInCrash: readonly TaskView[] = [];
    /** Settles the notification of the last crash, while its restart is under way. */
    private crashNotice?: (how: CrashOutcome) => void;
    private readonly changed = this.register(new vscode.EventEmitter<void>());
    /** Fires when a running server was replaced or lost (restart, crash): VS Code must reconnect. */
    readonly onDidChange = this.changed.event;
    private readonly launched = this.register(new vscode.EventEmitter<void>());
    /** Fires after every successful launch, the first one included. */
    readonly onDidLaunch = this.launched.event;

    constructor(
        private readonly serverJs: string,
        private readonly config: () => ExtensionConfig,
        private readonly log: ScopedLogger,
        /** The tasks still unfinished when the server went away (the owner's view of it), for the crash notice. */
        private readonly lostTasks: () => readonly TaskView[] = () => [],
    ) {
        super();
    }

    /** Set while the server is down after a crash or a failed start; cleared when it runs again. */
    problem?: string;
    /** The failed start last shown, so VS Code's retries of a broken launch do not repeat the notification. */
    private shownFailure?: string;

    get pid(): number | undefined {
        return this.current?.exited ? undefined : this.current?.pid;
    }

    get url(): string | undefined {
        return this.current?.exited ? undefined : this.current?.url;
    }

    /** The running server's credentials; undefined while none runs. */
    get secrets(): Secrets | undefined {
        return this.current?.exited ? undefined : this.current?.secrets;
    }

    /** True while a server child runs (or is being started). */
    get isRunning(): boolean {
        return this.starting !== undefined || (this.current !== undefined && !this.current.exited);
    }

    ensureStarted(): Promise<ServerProcess> {
        if (this.current && !this.current.exited) {
            return Promise.resolve(this.current);
        }
        this.starting ??= this.launch()
            .catch((err: unknown) => {
                this.startFailed(err);
                throw err;
            })
            .finally(() => (this.starting = undefined));
        return this.starting;
    }

    async restart(): Promise<ServerProcess> {
        clearTimeout(this.restartTimer);
        const old = this.current;
        this.current = undefined;
        await old?.stop();
        this.attempt = 0;
        const next = await this.ensureStarted();
        this.changed.fire();
        return next;
    }

    async stop(): Promise<void> {
        this.crashNotice?.('stopped');
        clearTimeout(this.restartTimer);
        clearTimeout(this.healthyTimer);
        const old = this.current;
        this.current = undefined;
        await old?.stop();
    }

    override dispose(): void {
        void this.stop();
        super.dispose();
    }

    private async launch(): Promise<ServerProcess> {
        const settings = this.config();
        const secrets: Secrets = { clientToken: newSecret(), ownerToken: newSecret() };
        // Keep the previous port on a restart: a client still holding the URL gets 401, not a stranger.
        const spec = {
            command: process.execPath,
            args: httpArgs(this.serverJs, settings, this.lastPort),
            env: serverEnv(secrets, this.lostInCrash),
            secrets,
        };
        let proc: ServerProcess;
        try {
            proc = await ServerProcess.start(spec, this.log);
        } catch (err) {
            // Wrong settings fail on any port: only another failure may be a port someone took.
            if (this.lastPort === 0 || (err instanceof ServerStartError && err.isSettingsProblem)) {
                throw err;
            }
            this.log.warn(`port ${this.lastPort} is taken (${(err as Error).message}); using a new one`);
            this.lastPort = 0;
            proc = await ServerProcess.start({ ...spec, args: httpArgs(this.serverJs, settings, 0) }, this.log);
        }
        if (this.isDisposed) {
            await proc.stop();
            throw new Error(vscode.l10n.t('the extension is shutting down'));
        }
        // The URL came from our child's own stdout; the proof also rules out anything else on that port.
        if (!(await verifyOwnerEndpoint(proc.url, secrets.ownerToken))) {
            await proc.stop();
            throw new Error(`the server at ${proc.url} did not prove it holds this launch's owner token`);
        }
        this.lastPort = Number(new URL(proc.url).port);
        this.current = proc;
        this.problem = undefined;
        this.shownFailure = undefined;
        this.log.info(`server ${proc.pid} listening on ${proc.url}`);
        proc.onExit((code, signal) => this.onExit(proc, code, signal));
        clearTimeout(this.healthyTimer);
        this.healthyTimer = setTimeout(() => (this.attempt = 0), HEALTHY_AFTER_MS);
        this.launched.fire();
        this.crashNotice?.('restarted');
        return proc;
    }

    private onExit(proc: ServerProcess, code: number | null, signal: NodeJS.Signals | null): void {
        if (proc.isStopping || this.isDisposed || this.current !== proc) {
            return;
        }
        this.current = undefined;
        const delay = backoffDelay(this.attempt++);
        const why = signal ? `signal ${signal}` : `code ${code}`;
        this.log.warn(`server ${proc.pid} exited unexpectedly (${why}); restarting in ${delay / 1000} s`);
        const shownWhy = signal
            ? vscode.l10n.t({ message: 'signal {0}', args: [signal], comment: ['Why a process ended: {0} is a signal such as SIGKILL'] })
            : vscode.l10n.t({ message: 'code {0}', args: [String(code)], comment: ['Why a process ended: {0} is its exit code'] });
        this.problem = vscode.l10n.t({ message: 'MCP Tasks server stopped unexpectedly ({0}); restarting', args: [shownWhy], comment: ['{0} is "signal …" or "code …"'] });
        this.showCrash(shownWhy);
        this.changed.fire();
        this.restartTimer = setTimeout(() => {
            // By now the owner connection has marked them lost: the new server answers a client still waiting on one.
            const known = new Set(this.lostInCrash.map(view => view.taskId));
            const lostNow = this.lostTasks().filter(view => !known.has(view.taskId));
            this.lostInCrash = [...this.lostInCrash, ...lostNow];
            this.ensureStarted().then(
                () => {
                    this.log.info('server restarted');
                    this.changed.fire();
                    if (lostNow.length > 0) {
                        this.reconnectVsCode();
                    }
                },
                // startFailed has shown it.
                err => this.log.error(`restart failed: ${(err as Error).message}`),
            );
        }, delay);
    }

    /**
     * VS Code's MCP client gives up its connection to a crashed server and waits for someone to start
     * it again; a chat's tool call waiting on a lost task waited with it, for good. Connected again,
     * its next poll reads the task as lost (MCP_TASKS_LOST_TASKS) and the call returns that error.
     */
    private reconnectVsCode(): void {
        this.log.info('reconnecting VS Code so a chat waiting on a lost task is told');
        Promise.resolve(vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true })).then(undefined, (err: unknown) =>
            this.log.warn(`VS Code did not reconnect: ${(err as Error).message}`),
        );
    }

    /**
     * A start or restart that failed is shown like a crash: the status bar turns to an error (through
     * `problem`) and one notification quotes the server's reason, with what fixes it.
     */
    private startFailed(err: unknown): void {
        if (this.isDisposed) {
            return;
        }
        const reason = err instanceof ServerStartError ? err.reason : (err as Error).message;
        this.log.error(`the server did not start: ${reason}`);
        this.problem = vscode.l10n.t({ message: 'MCP Tasks server could not start: {0}', args: [reason], comment: ['{0} is the server\'s own reason'] });
        // The crash's "restarting…" notification gives way to this one.
        this.crashNotice?.('stopped');
        this.changed.fire();
        if (this.shownFailure !== reason) {
            this.shownFailure = reason;
            void showServerProblem(this.problem, err instanceof ServerStartError ? err.setting : undefined);
        }
    }

    /**
     * A notification naming a moment ("restarting in 1 s") goes stale in the bell: this one shows
     * while the restart is under way and closes itself when a server runs again (or the extension
     * stops it); then one that stays says what happened.
     */
    private showCrash(shownWhy: string): void {
        this.crashNotice?.('stopped');
        const outcome = new Promise<CrashOutcome>(resolve => (this.crashNotice = resolve));
        void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `${this.problem}…` }, () => outcome);
        void outcome.then(how => {
            this.crashNotice = undefined;
            if (how === 'stopped') {
                return;
            }
            const stopped = vscode.l10n.t({ message: 'MCP Tasks server stopped unexpectedly ({0}) and was restarted.', args: [shownWhy], comment: ['{0} is "signal …" or "code …"'] });
            void showCrashNotice(stopped, this.lostTasks());
        });
    }
}
