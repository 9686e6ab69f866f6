import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME } from './constants';

/** The extension's one log: a LogOutputChannel with a [component] tag on each line. */
export class Logger implements vscode.Disposable {
    readonly channel: vscode.LogOutputChannel;

    constructor() {
        this.channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
    }

    scoped(component: string): ScopedLogger {
        const tag = `[${component}]`;
        return {
            trace: message => this.channel.trace(`${tag} ${message}`),
            debug: message => this.channel.debug(`${tag} ${message}`),
            info: message => this.channel.info(`${tag} ${message}`),
            warn: message => this.channel.warn(`${tag} ${message}`),
            error: message => this.channel.error(`${tag} ${message}`),
        };
    }

    show(): void {
        this.channel.show(true);
    }

    dispose(): void {
        this.channel.dispose();
    }
}

export interface ScopedLogger {
    trace(message: string): void;
    debug(message: string): void;
    info(message: string): void;
    warn(message: string): void;
    error(message: string): void;
}
