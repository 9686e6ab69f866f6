// How the Playwright drivers (uiDriver.mjs, walkDriver.mjs) wait for what they need to see: on the
// state itself, never for a fixed time. A loaded machine draws late, so a pause long enough on a
// quiet one read the page before it had changed; each wait here ends when the state is there, and
// its bound only stops a hung page, so it is generous.

/** How long a driver waits for a state before it gives up on it: a bound for a hung page, never a speed. */
export const STATE_MS = 60_000;

/**
 * How long the UI driver looks for the state a report is about before it writes the report with what
 * there is: well inside the 60 s a suite waits for the report (util.ts uiArtifact), so a state that never
 * comes fails on what the report says, not as a missing report.
 */
export const REPORT_MS = 30_000;

/**
 * Resolves with the first truthy value of `check` (which may read several frames, hence node side), or
 * undefined once `timeoutMs` has passed without one: the caller decides whether that is an error.
 * Looks again every `everyMs`; checks never overlap.
 */
export function pollFor(check, { timeoutMs = STATE_MS, everyMs = 100 } = {}) {
    return new Promise(resolve => {
        let running = false;
        let done = false;
        const finish = value => {
            if (!done) {
                done = true;
                clearInterval(poll);
                clearTimeout(timer);
                resolve(value);
            }
        };
        const look = async () => {
            if (running || done) {
                return;
            }
            running = true;
            try {
                const value = await check();
                if (value) {
                    finish(value);
                }
            } catch {
                // A page or frame between states (navigating, detached): not there yet.
            } finally {
                running = false;
            }
        };
        const poll = setInterval(look, everyMs);
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        void look();
    });
}

/**
 * Resolves once the elements `locator` matches are laid out the same on two animation frames in a row
 * (their boxes, scroll sizes and classes): a page sliding in, a font or an image arriving, a row redrawn
 * have finished moving them. Resolves false if they still moved after `timeoutMs`, true otherwise.
 */
export async function layoutSettled(locator, timeoutMs = 15_000) {
    return locator
        .evaluateAll(
            (elements, ms) =>
                new Promise(resolve => {
                    const end = performance.now() + ms;
                    const measure = () =>
                        JSON.stringify(
                            elements.map(el => {
                                const box = el.getBoundingClientRect();
                                return [box.x, box.y, box.width, box.height, el.scrollWidth, el.scrollHeight, el.clientWidth, el.clientHeight, el.className, el.getAttribute('aria-disabled')];
                            }),
                        );
                    let last = measure();
                    const look = () => {
                        const now = measure();
                        if (now === last) {
                            resolve(true);
                        } else if (performance.now() > end) {
                            resolve(false);
                        } else {
                            last = now;
                            requestAnimationFrame(look);
                        }
                    };
                    requestAnimationFrame(look);
                }),
            timeoutMs,
        )
        .catch(() => false);
}

/**
 * Resolves once `frame` (a page's main frame or a webview's) has drawn a new frame: what was just changed is
 * on screen. A frame that is not shown draws none (its animation frames never come), hence the bound;
 * false when it ran out.
 */
export async function painted(frame, timeoutMs = 10_000) {
    let timer;
    const drawn = await Promise.race([
        frame.evaluate(() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))).catch(() => false),
        new Promise(resolve => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return drawn;
}
