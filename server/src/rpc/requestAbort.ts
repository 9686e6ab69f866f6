/**
 * A request's cancellation. The AbortController (costly: an EventTarget) is made only when
 * something asks for the signal or aborts it; most requests (tasks/get, list, cancel) never do.
 */
export class RequestAbort {
    private controller?: AbortController;
    private afterSend?: (() => void)[];

    /** `reply`: the transport (stdio pipe, HTTP POST) the request came on, which only it may abort. */
    constructor(readonly reply?: object) {}

    get signal(): AbortSignal {
        return (this.controller ??= new AbortController()).signal;
    }

    get aborted(): boolean {
        return this.controller?.signal.aborted ?? false;
    }

    abort(reason: unknown): void {
        (this.controller ??= new AbortController()).abort(reason);
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
