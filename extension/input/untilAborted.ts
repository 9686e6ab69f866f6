// VS Code dialogs and notifications cannot be closed from code; when the MCP request that
// opened one is cancelled we stop waiting for it instead.

/** The value of `pending`, or undefined as soon as `signal` aborts (already aborted: at once). */
export function untilAborted<T>(pending: PromiseLike<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
    if (!signal) {
        return Promise.resolve(pending);
    }
    if (signal.aborted) {
        return Promise.resolve(undefined);
    }
    return new Promise<T | undefined>((resolve, reject) => {
        const onAbort = () => resolve(undefined);
        signal.addEventListener('abort', onAbort, { once: true });
        pending.then(
            value => {
                signal.removeEventListener('abort', onAbort);
                resolve(value);
            },
            (err: unknown) => {
                signal.removeEventListener('abort', onAbort);
                reject(err instanceof Error ? err : new Error(String(err)));
            },
        );
    });
}
