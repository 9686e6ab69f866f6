import type { Clock, ClockTimer } from '../util/clock.js';

/** Log messages of one wrapped server passed on per window; the rest of the window's are counted and said in one line. */
export const LOG_WINDOW_MS = 1000;
export const LOG_BURST = 20;
/** A log message's `data` longer than this (as JSON) is cut: one message must not weigh megabytes in every client's stream. */
export const MAX_LOG_DATA_CHARS = 8192;
/** List changes of one kind (prompts, resources) from one wrapped server: at most one per window, the last of a burst sent at its end. */
export const LIST_CHANGED_WINDOW_MS = 100;

type Notify = (method: string, params: Record<string, unknown>) => void;

/**
 * What a wrapped server notifies every client of ours, bounded: a server that floods log
 * messages (a loop logging each item) or list changes would otherwise become as many writes to
 * each client, and to a host that stops reading, memory without end (measured before this:
 * 78 to 578 MB in 60 s). Log messages pass as they come up to LOG_BURST a window, then one line
 * says how many were left out; list changes of a burst become one. Progress has its own relay
 * (progressRelay.ts), tied to its call.
 */
export class NotificationGate {
    private logsInWindow = 0;
    private logsDropped = 0;
    private logTimer?: ClockTimer;
    /** List-change methods waiting for their window's end, and whether one is due then. */
    private readonly listWindows = new Map<string, { timer: ClockTimer; due: boolean }>();
    private closed = false;

    constructor(
        private readonly server: string,
        private readonly clock: Clock,
        private readonly notify: Notify,
    ) {}

    readonly pass = (method: string, params: Record<string, unknown>): void => {
        if (this.closed) {
            return;
        }
        if (method === 'notifications/message') {
            this.log(params);
        } else if (method.endsWith('/list_changed')) {
            this.listChanged(method, params);
        } else {
            this.notify(method, params);
        }
    };

    /** Stops passing anything on (the gateway is closing): its timers end. */
    close(): void {
        this.closed = true;
        this.clock.clearTimeout(this.logTimer);
        for (const window of this.listWindows.values()) {
            this.clock.clearTimeout(window.timer);
        }
        this.listWindows.clear();
    }

    private log(params: Record<string, unknown>): void {
        this.logTimer ??= this.clock.setTimeout(gate => gate.logWindowEnded(), LOG_WINDOW_MS, this, true);
        if (this.logsInWindow >= LOG_BURST) {
            this.logsDropped++;
            return;
        }
        this.logsInWindow++;
        this.notify('notifications/message', boundedLog(params));
    }

    private logWindowEnded(): void {
        this.logTimer = undefined;
        this.logsInWindow = 0;
        if (this.logsDropped > 0) {
            const dropped = this.logsDropped;
            this.logsDropped = 0;
            this.notify('notifications/message', {
                level: 'warning',
                logger: 'mcp-tasks-gateway',
                data: `The wrapped server "${this.server}" sent ${dropped} more log message(s) in ${LOG_WINDOW_MS / 1000} s than the ${LOG_BURST} passed on; they were left out.`,
            });
        }
    }

    private listChanged(method: string, params: Record<string, unknown>): void {
        const window = this.listWindows.get(method);
        if (window) {
            window.due = true;
            return;
        }
        this.notify(method, params);
        this.openListWindow(method);
    }

    private openListWindow(method: string): void {
        const timer = this.clock.setTimeout(
            gate => {
                const ended = gate.listWindows.get(method);
                gate.listWindows.delete(method);
                if (ended?.due && !gate.closed) {
                    // The burst's last change: clients list again once more, after it.
                    gate.notify(method, {});
                    gate.openListWindow(method);
                }
            },
            LIST_CHANGED_WINDOW_MS,
            this,
            true,
        );
        this.listWindows.set(method, { timer, due: false });
    }
}

/** A log message whose data runs past MAX_LOG_DATA_CHARS (as JSON), with its data cut to that and saying so. */
export function boundedLog(params: Record<string, unknown>): Record<string, unknown> {
    const data = params.data;
    if (typeof data === 'string' ? data.length <= MAX_LOG_DATA_CHARS : (JSON.stringify(data) ?? '').length <= MAX_LOG_DATA_CHARS) {
        return params;
    }
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    return { ...params, data: `${text.slice(0, MAX_LOG_DATA_CHARS)}… (${text.length - MAX_LOG_DATA_CHARS} more characters left out by the gateway)` };
}

/**
 * Lists a wrapped server's tools again when it says they changed, once at a time: a burst of
 * `tools/list_changed` (1000 in a row) becomes at most one listing running and one after it,
 * not a listing (and a change for our clients) per notification.
 */
export class Relister {
    private running = false;
    private again = false;

    constructor(private readonly relist: () => Promise<void>) {}

    readonly request = (): void => {
        if (this.running) {
            this.again = true;
            return;
        }
        this.running = true;
        void this.relist().finally(() => {
            this.running = false;
            if (this.again) {
                this.again = false;
                this.request();
            }
        });
    };
}
