import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ToolDefinition } from '../tools/types.js';
import type { DownstreamSpec } from './config.js';
import { Downstream } from './downstream.js';
import { PassThrough } from './passThrough.js';
import { wrappedTools } from './wrappedTools.js';

export interface GatewayOptions {
    log: Logger;
    clock: Clock;
    /** Whether a tool name is ours already (built-in, command or task tool): such a downstream tool gets its server's prefix. */
    taken(name: string): boolean;
}

/**
 * The MCP servers this server wraps (--wrap, --wrap-url, --wrap-config): their tools, served as
 * ours, change whenever one of them lists new tools or comes back from a restart.
 */
export class Gateway {
    readonly downstreams: Downstream[];
    /** Prompts, resources, completions and logging, forwarded. */
    readonly passThrough: PassThrough;
    /** Called when the wrapped tools changed (set it once the server exists). */
    onToolsChanged?: () => void;
    /** Called with each downstream notification every client should hear (list changes, resource updates, log messages). */
    onNotification?: (method: string, params: Record<string, unknown>) => void;

    constructor(
        specs: readonly DownstreamSpec[],
        private readonly options: GatewayOptions,
    ) {
        this.downstreams = specs.map(spec => new Downstream(spec, options.log, options.clock, () => this.onToolsChanged?.()));
        this.passThrough = new PassThrough(this.downstreams, options.log);
        for (const downstream of this.downstreams) {
            downstream.onNotification = (method, params) => this.onNotification?.(method, params);
            // A restarted server has forgotten its subscriptions: the clients still want their updates.
            downstream.onConnected = () => this.passThrough.subscriptions.renew();
        }
    }

    /** Starts every downstream; resolves once each has connected or failed its first attempt (it then retries on its own). */
    async start(): Promise<void> {
        await Promise.all(this.downstreams.map(downstream => downstream.start()));
    }

    /** Our instructions followed by each wrapped server's own (as of its first connection), so the model reads theirs too. */
    instructions(ours: string): string {
        const theirs = this.downstreams.filter(downstream => downstream.instructions).map(downstream => `From the wrapped server "${downstream.name}": ${downstream.instructions}`);
        return [ours, ...theirs].join('\n\n');
    }

    tools(): ToolDefinition[] {
        return wrappedTools(this.downstreams, this.options.taken, this.options.log);
    }

    async close(): Promise<void> {
        await Promise.all(this.downstreams.map(downstream => downstream.close()));
    }
}
