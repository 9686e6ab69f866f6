import { systemClock, waitAtMost, type Clock } from '../util/clock.js';
import { createLogger, type Logger } from '../util/log.js';
import { LIST_WAIT_MS, type ToolsStarting } from '../mcp/context.js';
import type { ToolDefinition } from '../tools/types.js';
import type { DownstreamSpec } from './config.js';
import { Downstream } from './downstream.js';
import { PassThrough } from './passThrough.js';
import { BoundedResults } from './boundedResults.js';
import { wrappedTools } from './wrappedTools.js';

export interface GatewayOptions {
    /** Where the wrapped servers' stderr, starts and restarts are logged (default: stderr, info and above). */
    log?: Logger;
    clock?: Clock;
    /** Whether a tool name is ours already (built-in, command or task tool): such a downstream tool gets its server's prefix (default: none is). */
    taken?(name: string): boolean;
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
    /** Called whenever a wrapped server connects (the first time and after a restart): what it offers (instructions, prompts, resources) is known from then on. */
    onConnected?: (downstream: Downstream) => void;
    /** The wrapped servers' tools while their first starts are under way (tools/list and calls wait for them a while). */
    readonly starting: ToolsStarting;
    private firstStarts?: Promise<void>;
    private started = false;

    private readonly options: Required<GatewayOptions>;
    /** The wrapped results too long to hand a model whole, readable by read_output. */
    private readonly results: BoundedResults;

    constructor(specs: readonly DownstreamSpec[], options: GatewayOptions = {}) {
        this.options = { log: options.log ?? createLogger(), clock: options.clock ?? systemClock, taken: options.taken ?? (() => false) };
        const { log, clock } = this.options;
        this.results = new BoundedResults(clock);
        this.downstreams = specs.map(spec => new Downstream(spec, log, clock, () => this.onToolsChanged?.()));
        this.passThrough = new PassThrough(this.downstreams, log, signal => (this.starting.pending() ? this.starting.wait(signal, LIST_WAIT_MS) : Promise.resolve()));
        for (const downstream of this.downstreams) {
            downstream.onNotification = (method, params) => this.onNotification?.(method, params);
            downstream.onConnected = () => {
                // A restarted server has forgotten its subscriptions: the clients still want their updates.
                this.passThrough.subscriptions.renew();
                this.onConnected?.(downstream);
            };
        }
        this.starting = {
            pending: () => this.firstStarts !== undefined && !this.started,
            wait: (signal, maxMs) => this.waitForStarts(signal, maxMs),
        };
    }

    /**
     * Starts every downstream, in the background: the server answers its first requests at once,
     * however long a wrapped server takes to start (an npx download can take a minute), and each
     * one's tools arrive with notifications/tools/list_changed. Resolves once each has connected or
     * failed its first attempt (it then retries on its own).
     */
    start(): Promise<void> {
        this.firstStarts ??= Promise.all(this.downstreams.map(downstream => downstream.start())).then(() => {
            this.started = true;
            const up = this.downstreams.filter(downstream => downstream.state === 'up').length;
            this.options.log.info(`[gateway] ${up} of ${this.downstreams.length} wrapped server(s) up after their first start`);
        });
        return this.firstStarts;
    }

    /** Until the first starts are over, `maxMs` has passed or `signal` aborted, whichever comes first. */
    private waitForStarts(signal: AbortSignal, maxMs: number): Promise<void> {
        const starts = this.firstStarts;
        if (!starts || this.started || signal.aborted) {
            return Promise.resolve();
        }
        return waitAtMost(this.options.clock, signal, maxMs, done => void starts.then(done));
    }

    /** Our instructions followed by each wrapped server's own (as of its first connection), so the model reads theirs too. */
    instructions(ours: string): string {
        const theirs = this.downstreams.filter(downstream => downstream.instructions).map(downstream => `From the wrapped server "${downstream.name}": ${downstream.instructions}`);
        return [ours, ...theirs].join('\n\n');
    }

    /**
     * Where the wrapped servers' roots/list is answered from: the host's roots, when the gateway
     * serves one host (stdio). Unset (over HTTP, where clients would see each other's folders),
     * the answer is an empty list, and a server such as server-filesystem keeps the folders its
     * arguments name.
     */
    setRoots(roots: (signal: AbortSignal) => Promise<unknown[]>): void {
        for (const downstream of this.downstreams) {
            downstream.roots = roots;
        }
    }

    /** The host's roots changed (or it has just said it has some): each wrapped server asks again. */
    rootsChanged(): void {
        for (const downstream of this.downstreams) {
            downstream.rootsChanged();
        }
    }

    tools(): ToolDefinition[] {
        return wrappedTools(this.downstreams, this.options.taken, this.options.log, this.results);
    }

    async close(): Promise<void> {
        await Promise.all(this.downstreams.map(downstream => downstream.close()));
        this.results.close();
    }
}
