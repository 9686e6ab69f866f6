import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CommandsLaunch } from '../commandTools/commandTools';
import type { ConfigWatcher, ExtensionConfig, LaunchChange, Transport } from '../config';
import { PROVIDER_ID } from '../constants';
import { Disposable } from '../lifecycle';
import type { Logger, ScopedLogger } from '../logger';
import { TasksMcpProvider } from './definitionProvider';
import { HttpMode } from './httpMode';
import type { OwnerConnection } from '../owner/ownerConnection';
import { baseEnv, httpArgs } from './serverArgs';
import { ServerProcess } from './serverProcess';
import type { ServerStartError } from './startFailure';
import { showServerProblem } from '../errorNotice';
import type { ServerMode } from './serverMode';
import { StdioMode } from './stdioMode';

const OWNER_READY_TIMEOUT_MS = 20_000;

/** Builds the mode of one transport: the only place that maps a transport to its behaviour. */
export type ModeFactory = (transport: Transport) => ServerMode;

/** Whether a server would start with these settings: undefined if so, else the server's reason. */
export type SettingsCheck = (config: ExtensionConfig) => Promise<ServerStartError | undefined>;

/**
 * The server side of the extension: the current mode, the definition provider that publishes it,
 * and the owner connection kept pointed at it. Settings that need a new server restart it here.
 */
export class ServerController extends Disposable {
    private current: ServerMode;
    private modeSubscriptions: vscode.Disposable[] = [];
    private applying: Promise<void> = Promise.resolve();
    private waiting = false;
    private readonly problemChanged = this.register(new vscode.EventEmitter<string | undefined>());
    /** A server problem appeared or cleared (undefined). */
    readonly onDidChangeProblem = this.problemChanged.event;
    readonly provider: TasksMcpProvider;

    constructor(
        private readonly createMode: ModeFactory,
        config: ConfigWatcher,
        private readonly owner: OwnerConnection,
        private readonly log: ScopedLogger,
        /** Resolves when the current server may stop for new settings (asks while tasks run). */
        private readonly untilStopAllowed: () => Promise<void> = () => Promise.resolve(),
        /** Checked before a settings change stops the running server: settings it would refuse leave it running. */
        private readonly checkSettings: SettingsCheck = () => Promise.resolve(undefined),
    ) {
        super();
        this.provider = this.register(new TasksMcpProvider(() => this.current, log));
        this.current = this.adopt(createMode(config.current.transport));
        // One change at a time: a change made while an earlier one waits applies after it.
        this.register(
            config.onDidChangeLaunchSettings(
                change => void (this.applying = this.applying.then(() => this.onLaunchSettings(change)).catch(err => this.log.error(`applying new settings failed: ${(err as Error).message}`))),
            ),
        );
        this.register({
            dispose: () => {
                this.unsubscribe();
                this.current.dispose();
                this.owner.setEndpoint(undefined);
            },
        });
    }

    /** True while new settings wait for running tasks before they restart the server. */
    get settingsWaiting(): boolean {
        return this.waiting;
    }

    /** Why the server is down, while it is (a crash being restarted, a failed start). */
    get problem(): string | undefined {
        return this.current.problem;
    }

    get mode(): ServerMode {
        return this.current;
    }

    /** Makes sure a server runs and our owner connection is up (Run Tool and friends). */
    async ready(timeoutMs = OWNER_READY_TIMEOUT_MS): Promise<void> {
        if (this.owner.connected) {
            return;
        }
        await this.current.start();
        await new Promise<void>((resolve, reject) => {
            if (this.owner.connected) {
                resolve();
                return;
            }
            const timer = setTimeout(() => {
                subscription.dispose();
                reject(new Error(vscode.l10n.t('the MCP Tasks server did not come up in time (see MCP Tasks: Show Log)')));
            }, timeoutMs);
            const subscription = this.owner.onDidChangeState(up => {
                if (up) {
                    clearTimeout(timer);
                    subscription.dispose();
                    resolve();
                }
            });
        });
    }

    restart(): Promise<void> {
        return this.current.restart();
    }

    /** Stops the current server; VS Code awaits this on deactivate. */
    stop(): Promise<void> {
        return this.current.stop();
    }

    private async onLaunchSettings({ previous, current }: LaunchChange): Promise<void> {
        const refused = await this.checkSettings(current);
        if (refused) {
            this.log.error(`new settings not applied: ${refused.reason}`);
            void showServerProblem(
                vscode.l10n.t({ message: 'MCP Tasks did not apply the new settings: {0}. The server keeps running with the previous ones.', args: [refused.reason], comment: ['{0} is the server\'s reason, naming the settings'] }),
                refused.setting,
                false,
            );
            return;
        }
        this.waiting = true;
        try {
            await this.untilStopAllowed();
        } finally {
            this.waiting = false;
        }
        if (this.isDisposed) {
            return;
        }
        if (previous.transport === current.transport) {
            this.log.info('server settings changed; restarting');
            await this.current.restart().catch(err => this.log.error(`restart failed: ${(err as Error).message}`));
            return;
        }
        this.log.info(`transport ${previous.transport} → ${current.transport}; switching servers`);
        const old = this.current;
        this.unsubscribe();
        this.current = this.adopt(this.createMode(current.transport));
        // Tell VS Code at once (a stale definition no longer resolves), then stop the old server.
        this.provider.refresh('transport changed');
        await old.stop().catch(err => this.log.error(`stopping the ${old.transport} server failed: ${(err as Error).message}`));
        old.dispose();
    }

    private adopt(mode: ServerMode): ServerMode {
        this.modeSubscriptions = [mode.onDidChangeDefinition(reason => this.provider.refresh(reason)), mode.onDidChangeServer(() => this.followServer(mode))];
        this.followServer(mode);
        return mode;
    }

    private unsubscribe(): void {
        for (const subscription of this.modeSubscriptions.splice(0)) {
            subscription.dispose();
        }
    }

    private followServer(mode: ServerMode): void {
        this.owner.setEndpoint(mode.ownerEndpoint);
        this.problemChanged.fire(mode.problem);
    }
}

/** Publishes the server to VS Code and keeps our owner connection on it. Nothing starts here. */
export function registerServer(
    context: vscode.ExtensionContext,
    logger: Logger,
    config: ConfigWatcher,
    owner: OwnerConnection,
    commands?: CommandsLaunch,
    untilStopAllowed?: () => Promise<void>,
    /** Writes the wrapped servers' config a launch uses; its file, or undefined for none. */
    wrapFile: (text: string | undefined) => string | undefined = () => undefined,
): ServerController {
    const serverJs = context.asAbsolutePath('dist/server.js');
    // The workspace's own storage (the global one without a workspace): a reloaded window's server takes over the tasks of the one before.
    const dataDir = join((context.storageUri ?? context.globalStorageUri).fsPath, 'tasks');
    const files = (settings: ExtensionConfig): ExtensionConfig => ({ ...settings, commands, wrapFile: wrapFile(settings.wrap), dataDir });
    const launch = (): ExtensionConfig => files(config.current);
    // The server's own parser judges the settings (both transports pass the same limit flags).
    const checkSettings: SettingsCheck = settings => ServerProcess.check({ command: process.execPath, args: httpArgs(serverJs, files(settings)), env: baseEnv() }, logger.scoped('server'));
    // Each mode makes fresh credentials for every server it launches.
    const createMode: ModeFactory = transport =>
        transport === 'http' ? new HttpMode(serverJs, launch, logger.scoped('server'), () => owner.lostTasks) : new StdioMode(serverJs, launch, logger.scoped('stdio'), () => owner.lostTasks);
    const controller = new ServerController(createMode, config, owner, logger.scoped('provider'), untilStopAllowed, checkSettings);
    context.subscriptions.push(controller, vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, controller.provider));
    return controller;
}
