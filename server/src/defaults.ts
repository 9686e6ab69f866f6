import type { RuntimeLimits } from './tasks/runtime.js';

/**
 * The library's task limits when a caller gives none; the command line's defaults are these too
 * (server/src/flags/table.ts). No runtime imports, so the extension can read them.
 */
export const DEFAULT_LIMITS: Required<RuntimeLimits> = {
    defaultTtlMs: 60 * 60 * 1000,
    maxTtlMs: 24 * 60 * 60 * 1000,
    maxTasksPerClient: 1000,
    maxRetainedTasksPerClient: 10_000,
    maxRetainedBytesPerClient: 64 * 1024 * 1024,
    pollIntervalMs: 1000,
    maxSubtaskDepth: 4,
    maxChildrenPerTask: 16,
    abandonAfterMs: 0,
    stoppedWaiting: 'off',
};
