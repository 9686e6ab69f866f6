/**
 * A request's cancellation (also a deferrable plain call's own stop, mcp/defer.ts). The
 * AbortController (costly: an EventTarget) is made only when something asks for the signal; most
 * requests (tasks/get, list, cancel) never do, and code on a hot path listens through whenAborted
 * instead.
 */
export class RequestAbort {
    private controller?: AbortController;
    private stopped?: { reason: unknown };
    private listeners?: ((reason: unknown) => void)[];
    private afterSend?: (() => void)[];

    /** `reply`: the transport (stdio pipe, HTTP POST) the request came on, which only it may abort. */
    constructor(readonly reply?: object) {}

    get signal(): AbortSignal {
        if (!this.controller) {
            this.controller = new AbortController();
            if (this.stopped) {
                this.controller.abort(this.stopped.reason);
            }
        }
        return this.controller.signal;
    }

    get aborted(): boolean {
        return this.stopped !== undefined;
    }

    /** Aborts once; later calls do nothing (as AbortController.abort). */
    abort(reason: unknown): void {
        if (this.stopped) {
            return;
        }
        this.stopped = { reason };
        this.controller?.abort(reason);
        const listeners = this.listeners;
        this.listeners = undefined;
        for (const listener of listeners ?? []) {
            listener(reason);
        }
    }

    /**
     * Calls `listener` with the reason when the request is aborted (at once if it is already),
     * like a listener on `signal` but without making the AbortController (about a kilobyte and
     * several microseconds per request, measured on the gateway's plain calls).
     */
    whenAborted(listener: (reason: unknown) => void): void {
        if (this.stopped) {
            listener(this.stopped.reason);
        } else {
            (this.listeners ??= []).push(listener);
        }
    }

    /** Removes a listener whenAborted added. */
    offAborted(listener: (reason: unknown) => void): void {
        const index = this.listeners?.indexOf(listener) ?? -1;
        if (index >= 0) {
            this.listeners!.splice(index, 1);
        }
    }

    /** Runs `fn` once the request's response has been handed to its transport (RpcConnection.answer). */
    afterResponse(fn: () => void): void {
        (this.afterSend ??= []).push(fn);
    }

    /** @internal the response is out: what waited for it runs, in order. */
    responded(): void {
        const after = this.afterSend;
        this.afterSend = undefined;
        for (const fn of after ?? []) {
            fn();
        }
    }
}
