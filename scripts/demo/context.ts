import type { DemoServer } from './server.js';
import type { DemoSession } from './session.js';
import type { Terminal } from './ui.js';
import type { CurlCommands } from './wire.js';

/** Everything a step needs, plus what earlier steps leave for later ones. */
export interface DemoContext {
    term: Terminal;
    /** Set by step 1. */
    session?: DemoSession;
    curl: CurlCommands;
    url: string;
    token: string | undefined;
    /** Set when the demo started the server itself (so its log can be read). */
    server: DemoServer | undefined;
    /** The slow_compute task of step 3, watched in step 4. */
    computeTask?: { taskId: string; pollInterval: number; progress: number[] };
}

export class StepFailure extends Error {}

/** Prints a ✓ line for a fact the step expects, or throws (and the step fails) when it does not hold. */
export function expect(ctx: DemoContext, what: string, ok: boolean, actual?: unknown): void {
    const { paint } = ctx.term;
    if (ok) {
        ctx.term.print(`  ${paint.green('✓')} ${what}`);
        return;
    }
    const detail = actual === undefined ? '' : ` (got ${typeof actual === 'string' ? actual : JSON.stringify(actual)})`;
    ctx.term.print(`  ${paint.red('✗')} ${what}${detail}`);
    throw new StepFailure(`${what}${detail}`);
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Resolves with `check()`'s first truthy value, or undefined after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = check();
        if (value || Date.now() > deadline) {
            return value;
        }
        await sleep(25);
    }
}
