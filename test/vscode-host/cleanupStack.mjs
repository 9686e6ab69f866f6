// Teardown for a run that may be interrupted while it is still starting.

/**
 * Cleanup actions run last-in first-out. Once closed, an added action runs at once
 * and `add` throws, which stops a session that was still starting.
 */
export function createCleanupStack() {
    const actions = [];
    let closed = false;
    return {
        async add(action) {
            if (closed) {
                await action().catch(() => {});
                throw new Error('run already finished');
            }
            actions.push(action);
        },
        close() {
            closed = true;
        },
        async runAll(onError) {
            while (actions.length > 0) {
                await actions.pop()().catch(onError);
            }
        },
    };
}
