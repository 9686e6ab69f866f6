import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME } from './constants';

/** The extension's one log: a LogOutputChannel with a [component] tag on each line. */
export class Logger implements vscode.Disposable {
    readonly channel: vscode.LogOutputChannel;

    /** @param mirror also print each line to the console (test runs read the extension host's console). */
    constructor(private readonly mirror = false) {
        this.channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
    }

    scoped(component: string): ScopedLogger {
        const tag = `[${component}]`;
        const line = (level: 'trace' | 'debug' | 'info' | 'warn' | 'error') => (message: string) => {
            this.channel[level](`${tag} ${message}`);
            if (this.mirror && level !== 'trace') {
                console.log(`[mcp-tasks ${level}] ${tag} ${message}`);
            }
        };
        return { trace: line('trace'), debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
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
