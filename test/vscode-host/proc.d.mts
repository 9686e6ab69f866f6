// Types for the TypeScript suites that reuse proc.mjs (the host matrix finds a host's process tree with it).

/** Pids of every live descendant of `rootPid` (Linux /proc), children first. */
export function descendantsOf(rootPid: number): number[];
