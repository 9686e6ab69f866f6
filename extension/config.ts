import * as vscode from 'vscode';
import { Settings, SETTINGS_SECTION } from './constants';
import { Disposable } from './lifecycle';
import { settingDefault } from './launcher/serverArgs';

export type Transport = 'http' | 'stdio';

export interface ExtensionConfig {
    transport: Transport;
    defaultTtl: string;
    maxTtl: string;
    maxTasksPerClient: number;
    logLevel: 'error' | 'warn' | 'info' | 'debug';
    /** Offer models start_<tool>, get_task, cancel_task and list_tasks. */
    taskTools: boolean;
    /** Serve the built-in demonstration tools (greet, slow_compute, …). */
    demoTools: boolean;
    /** Cancel a chat's task once VS Code stops polling it this long (a duration, or "off"). */
    abandonAfter: string;
    /** When VS Code stops polling a chat's task: cancel it at once, or keep it running for the user. */
    stoppedWaiting: 'cancel' | 'keep';
    /** Preferred model for sampling (matched against family, name, id); empty = first available. */
    samplingModel?: string;
    /** Where the command tools are (filled in by registerServer, not read from settings). */
    commands?: { file: string; logDir: string };
    /** The merged wrapped servers' config (`mcpTasks.wrap` and the workspace files), not read by readConfig. */
    wrap?: string;
    /** The file holding `wrap`, for --wrap-config (filled in by registerServer). */
    wrapFile?: string;
    /** The server's data folder, in this workspace's storage (filled in by registerServer). */
    dataDir?: string;
}

export function readConfig(): ExtensionConfig {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    return {
        transport: cfg.get<Transport>(Settings.transport, 'http') === 'stdio' ? 'stdio' : 'http',
        defaultTtl: cfg.get<string>(Settings.defaultTtl, settingDefault('defaultTtl')),
        maxTtl: cfg.get<string>(Settings.maxTtl, settingDefault('maxTtl')),
        maxTasksPerClient: cfg.get<number>(Settings.maxTasksPerClient, settingDefault('maxTasksPerClient')),
        logLevel: cfg.get<ExtensionConfig['logLevel']>(Settings.logLevel, settingDefault('logLevel') as ExtensionConfig['logLevel']),
        taskTools: cfg.get<boolean>(Settings.taskTools, settingDefault('taskTools')),
        demoTools: cfg.get<boolean>(Settings.demoTools, settingDefault('demoTools')),
        abandonAfter: cfg.get<string>(Settings.abandonAfter, settingDefault('abandonAfter')),
        stoppedWaiting: cfg.get<string>(Settings.stoppedWaiting, settingDefault('stoppedWaiting')) === 'keep' ? 'keep' : 'cancel',
        samplingModel: cfg.get<string>(Settings.samplingModel, '') || undefined,
    };
}

/** The settings a server is launched with: a change to any of them means a new server. */
const LAUNCH_SETTINGS = ['transport', 'defaultTtl', 'maxTtl', 'maxTasksPerClient', 'logLevel', 'taskTools', 'demoTools', 'abandonAfter', 'stoppedWaiting', 'wrap'] as const satisfies readonly (keyof ExtensionConfig)[];

export function launchSettingsChanged(previous: ExtensionConfig, next: ExtensionConfig): boolean {
    return LAUNCH_SETTINGS.some(key => previous[key] !== next[key]);
}

export interface LaunchChange {
    previous: ExtensionConfig;
    current: ExtensionConfig;
}

/** The current settings, re-read when they change; announces changes that need a new server. */
export class ConfigWatcher extends Disposable {
    private value: ExtensionConfig;
    private readonly launchChanged = this.register(new vscode.EventEmitter<LaunchChange>());
    readonly onDidChangeLaunchSettings = this.launchChanged.event;

    /** `wrap`: the wrapped servers' config now, and its changes (they come from files as well as settings). */
    constructor(wrap?: { text: string | undefined; onDidChange: vscode.Event<string | undefined> }) {
        super();
        this.value = { ...readConfig(), wrap: wrap?.text };
        this.register(
            vscode.workspace.onDidChangeConfiguration(event => {
                if (event.affectsConfiguration(SETTINGS_SECTION)) {
                    this.set({ ...readConfig(), wrap: this.value.wrap });
                }
            }),
        );
        if (wrap) {
            this.register(wrap.onDidChange(text => this.set({ ...this.value, wrap: text })));
        }
    }

    private set(next: ExtensionConfig): void {
        const previous = this.value;
        this.value = next;
        if (launchSettingsChanged(previous, next)) {
            this.launchChanged.fire({ previous, current: next });
        }
    }

    get current(): ExtensionConfig {
        return this.value;
    }
}
