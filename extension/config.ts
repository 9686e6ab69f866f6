import * as vscode from 'vscode';
import { Settings, SETTINGS_SECTION } from './constants';

export type Transport = 'http' | 'stdio';

export interface ExtensionConfig {
    transport: Transport;
    defaultTtl: string;
    maxTtl: string;
    maxTasksPerClient: number;
    logLevel: 'error' | 'warn' | 'info' | 'debug';
    /** Preferred model for sampling (matched against family, name, id); empty = first available. */
    samplingModel?: string;
}

export function readConfig(): ExtensionConfig {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    return {
        transport: cfg.get<Transport>(Settings.transport, 'http') === 'stdio' ? 'stdio' : 'http',
        defaultTtl: cfg.get<string>(Settings.defaultTtl, '1h'),
        maxTtl: cfg.get<string>(Settings.maxTtl, '24h'),
        maxTasksPerClient: cfg.get<number>(Settings.maxTasksPerClient, 1000),
        logLevel: cfg.get<ExtensionConfig['logLevel']>(Settings.logLevel, 'info'),
        samplingModel: cfg.get<string>(Settings.samplingModel, '') || undefined,
    };
}

/** Fires when a setting that changes how the server is launched changes. */
export function onDidChangeServerConfig(listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration(SETTINGS_SECTION)) {
            listener();
        }
    });
}
