/**
 * The variable every process of a run inherits, set to the run's own id. A descendant that left
 * the run's process group (setsid, `detached: true`) and was reparented when its parent exited has
 * no other tie to the run left: /proc ancestry then leads to init. Only native code can make the
 * server a subreaper (prctl), and cgroups need a delegated hierarchy most machines and containers
 * lack, so the environment is what a daemon carries along. A process that clears its environment
 * (`env -i`) is not found; the pipe grace still ends the run.
 */
export const RUN_MARKER = 'MCP_TASKS_RUN';

/** A live (not zombie) process, as one scan of the process table saw it. */
export interface ScannedProcess {
    pid: number;
    pgrp: number;
    /** Its parent's pid, where the table has it (lineage 'parent'). */
    ppid?: number;
    /** When it started, comparable with the `since` of a stop (lineage 'parent'): a parent link older than the run is a reused pid's. */
    start?: number;
    /** The value of RUN_MARKER in its environment, when it has one and was started at or after the scan's `since`. */
    marker?: string;
}

/** What the stopper needs of the operating system (procTable, psTable, windowsProcesses); tests put a table of their own in its place. */
export interface ProcessTable {
    /**
     * How a run's descendants are found: 'marker' (default) by RUN_MARKER in their environment
     * (/proc); 'parent' by parent links, where no other process's environment can be read (ps, wmic).
     */
    readonly lineage?: 'marker' | 'parent';
    /** Whether a negative target signals a whole process group (default); false where there are none (Windows: it ends the tree it can). */
    readonly groups?: boolean;
    /** Sends `signal` (0: only asks) to a process, or to a whole group when `target` is negative; false when nothing is there. */
    signal(target: number, signal: NodeJS.Signals | 0): boolean;
    /**
     * Every live process of the machine, read in slices that leave the event loop free between
     * them; the environment only of processes started at or after `since` (a start time), since
     * a run's descendants cannot be older than its leader. Undefined where the processes cannot
     * be listed (then only the process group is stopped, and the stop says it could not confirm the rest).
     */
    scan(since: number): Promise<ScannedProcess[] | undefined>;
    /**
     * For a stop's `since`, read right after spawning: a time no descendant of `pid` started before,
     * comparable with ScannedProcess.start. Default: startTimeOf.
     */
    runStartOf?(pid: number): number;
    /** When a process started, comparable with another's (clock ticks since boot on Linux); 0 when unknown. */
    startTimeOf(pid: number): number;
    /** A process's command line for a message, or '' when it is gone. */
    commandOf(pid: number): string;
}
