import type { Clock, ClockTimer } from '../util/clock.js';
import { currentPlatform } from '../platform/index.js';
import type { ProcessTable, ScannedProcess } from '../platform/processTable.js';

/** How often the shared poller looks at every stopping group: one signal 0 each, no process list read. */
const TICK_MS = 20;
/** How often the process list (/proc, ps, wmic) is read again while stops are under way, for descendants that appeared since and for zombies. */
const RESCAN_MS = 500;
/** After SIGKILL, how long what is left gets to disappear before the stop gives up and names it. */
export const KILL_WAIT_MS = 400;
/**
 * How much longer a stop waits for its first process list when none has come back by then: wmic
 * and PowerShell take seconds on Windows, and a stop that ends before any list arrived can only say
 * it could not confirm.
 */
export const FIRST_SCAN_WAIT_MS = 10_000;

/** A process a stop could not end. */
export interface Survivor {
    pid: number;
    command: string;
}

/** How a stop ended: what it could not end, and why it could not see the rest, when it could not. */
export interface StopReport {
    survivors: Survivor[];
    /** Set when no scan could list the machine's processes: only the command itself was seen to end. */
    unconfirmed?: string;
}

/** Why a stop that could list no processes cannot say its command's children ended, in words for the model and the sidebar. */
export const UNCONFIRMED_NOTE = "could not confirm that the processes it started ended: this system's process list could not be read";

/** The processes a stop could not end, by pid and command line, for a result and the log. */
export function survivorNote(survivors: readonly Survivor[]): string {
    return `Could not stop: ${survivors.map(({ pid, command }) => `pid ${pid} (${command || 'unknown'})`).join(', ')}`;
}

export interface StopTarget {
    /** The leader's pid, which is its group's id. */
    pgid: number;
    /** RUN_MARKER's value in the run's environment: finds the descendants that left the group. */
    marker: string;
    leaderExited: Promise<unknown>;
    /** The leader's start time (startTimeOf, read when it was spawned): its descendants are no older. */
    since: number;
    /** Between SIGTERM and SIGKILL. */
    graceMs: number;
}

class Stop {
    exited = false;
    /** Whether the group has had its SIGTERM (lineage 'parent': only once a scan has seen who descends from it). */
    termSent = false;
    killed = false;
    /** Set once a scan that started after this stop began has come back. */
    scanned = false;
    /** The group's live members and the marked processes outside it (strays), by the latest scan. */
    members: number[] = [];
    strays: number[] = [];
    /** Lineage 'parent': every pid seen to descend from the leader, the dead included (their children keep their id on Windows). */
    readonly related: Set<number>;
    /** Whether some scan listed the processes. */
    listed = false;
    readonly killAt: number;
    readonly giveUpAt: number;
    readonly done: Promise<StopReport>;
    resolve!: (report: StopReport) => void;

    constructor(
        readonly target: StopTarget,
        readonly startedAt: number,
    ) {
        this.killAt = startedAt + target.graceMs;
        this.giveUpAt = this.killAt + KILL_WAIT_MS;
        this.related = new Set([target.pgid]);
        this.done = new Promise(resolve => (this.resolve = resolve));
    }
}

/**
 * Stops process groups and the descendants that left them: SIGTERM, then SIGKILL after each
 * target's grace. One poller serves every stop under way. Each tick asks each group whether it has
 * members (a signal 0, whatever the number of processes on the machine); the process list is read, without
 * blocking, once per scan for all stops together: when a stop begins, at SIGKILL and every
 * RESCAN_MS while any is under way. A stop ends when its leader has exited and nothing of it is
 * left, or KILL_WAIT_MS after SIGKILL, naming what is still there.
 */
export class GroupStopper {
    private readonly stops = new Set<Stop>();
    private timer?: ClockTimer;
    private scanning = false;
    private scanWanted = false;
    private lastScanAt = -Infinity;
    /** Scans started, for tests and the bench: one serves many stops. */
    scans = 0;

    constructor(
        private readonly clock: Clock,
        private readonly table: ProcessTable = currentPlatform.processTable,
    ) {}

    /** When process `pid` started, for StopTarget.since: read right after spawning it. */
    startTimeOf(pid: number): number {
        return this.table.runStartOf?.(pid) ?? this.table.startTimeOf(pid);
    }

    /** Resolves with the processes that could not be stopped (usually none), and whether the rest could be seen to end. */
    stop(target: StopTarget): Promise<StopReport> {
        const stop = new Stop(target, this.clock.now());
        // Parent links are all that tie a descendant to the run there: signalled first, a leader
        // could exit before the scan and its children, orphaned, would be no one's.
        if (this.table.lineage !== 'parent') {
            this.term(stop);
        }
        void target.leaderExited.then(() => (stop.exited = true));
        this.stops.add(stop);
        this.scanWanted = true;
        this.timer ??= this.clock.setInterval(() => this.tick(), TICK_MS);
        this.startScan();
        return stop.done;
    }

    private tick(): void {
        const now = this.clock.now();
        if (this.scanWanted || now - this.lastScanAt >= RESCAN_MS) {
            this.startScan();
        }
        for (const stop of this.stops) {
            // Windows keeps a dead parent's id in its children, so there the tree is ended at once (from the first tick, once an exit is known).
            if (!stop.termSent && this.table.groups === false) {
                this.term(stop);
            }
            if (!stop.killed && now >= stop.killAt) {
                this.kill(stop);
            }
            stop.strays = stop.strays.filter(pid => this.table.signal(pid, 0));
            if (stop.exited && stop.scanned && !this.groupLeft(stop) && stop.strays.length === 0) {
                this.finish(stop, []);
            } else if (now >= stop.giveUpAt && (stop.scanned || now >= stop.giveUpAt + FIRST_SCAN_WAIT_MS)) {
                this.finish(stop, this.survivors(stop));
            }
        }
    }

    /**
     * Whether the group has a live member. A group that answers though the latest scan saw none
     * holds only zombies (PID 1 of some containers never reaps orphans) or a process born after
     * that scan: one SIGKILL ends the latter, and the group counts as gone.
     */
    private groupLeft(stop: Stop): boolean {
        const { pgid } = stop.target;
        if (!this.leaderOwned(stop) || !this.table.signal(-pgid, 0)) {
            return false;
        }
        if (stop.scanned && stop.members.length === 0) {
            this.table.signal(-pgid, 'SIGKILL');
            return false;
        }
        return true;
    }

    /** Whether the leader's pid still names the run's process: without groups, an exited leader's pid may be another process's already. */
    private leaderOwned(stop: Stop): boolean {
        return this.table.groups !== false || !stop.exited;
    }

    private term(stop: Stop): void {
        stop.termSent = true;
        if (this.leaderOwned(stop)) {
            this.table.signal(-stop.target.pgid, 'SIGTERM');
        }
    }

    private kill(stop: Stop): void {
        stop.killed = true;
        if (this.leaderOwned(stop)) {
            this.table.signal(-stop.target.pgid, 'SIGKILL');
        }
        for (const pid of stop.strays) {
            this.table.signal(pid, 'SIGKILL');
        }
        // Anything started during the grace is found and killed too.
        this.scanWanted = true;
    }

    private startScan(): void {
        if (this.scanning) {
            return;
        }
        this.scanning = true;
        this.scanWanted = false;
        this.scans += 1;
        const startedAt = (this.lastScanAt = this.clock.now());
        const since = Math.min(...[...this.stops].map(stop => stop.target.since));
        this.table.scan(since).then(
            procs => this.scanned(startedAt, procs),
            () => this.scanned(startedAt, undefined),
        );
    }

    /** Applies a scan to the stops that began before it did; strays get the signal their stop is at. */
    private scanned(startedAt: number, procs: ScannedProcess[] | undefined): void {
        this.scanning = false;
        for (const stop of this.stops) {
            if (stop.startedAt > startedAt) {
                continue;
            }
            const { pgid, marker } = stop.target;
            stop.scanned = true;
            if (!stop.termSent) {
                this.term(stop);
            }
            if (procs === undefined) {
                // No process list: the group's answer to a signal 0 is all there is.
                stop.members = [pgid];
                continue;
            }
            stop.listed = true;
            const known = new Set(stop.strays);
            if (this.table.lineage === 'parent') {
                this.byParents(stop, procs);
            } else {
                stop.members = procs.filter(proc => proc.pgrp === pgid).map(proc => proc.pid);
                stop.strays = procs.filter(proc => proc.marker === marker && proc.pgrp !== pgid).map(proc => proc.pid);
            }
            for (const pid of stop.strays) {
                if (stop.killed || !known.has(pid)) {
                    this.table.signal(pid, stop.killed ? 'SIGKILL' : 'SIGTERM');
                }
            }
        }
        if (this.stops.size > 0) {
            this.tick();
        }
    }

    /**
     * Lineage 'parent': the run is what descends from the leader by parent links, the links of
     * every scan so far included (a child whose parent exited since is still known). Outside the
     * group (or, without groups, besides the leader) each such process is a stray.
     */
    private byParents(stop: Stop, procs: ScannedProcess[]): void {
        const { pgid, since } = stop.target;
        // A process older than the run holds a parent id that a dead process of the run reused (Windows reuses pids at once).
        const young = (proc: ScannedProcess): boolean => !since || !proc.start || proc.start >= since;
        for (let grew = true; grew; ) {
            grew = false;
            for (const proc of procs) {
                if (proc.ppid !== undefined && !stop.related.has(proc.pid) && stop.related.has(proc.ppid) && young(proc)) {
                    stop.related.add(proc.pid);
                    grew = true;
                }
            }
        }
        const groups = this.table.groups !== false;
        const inGroup = (proc: ScannedProcess): boolean => (groups ? proc.pgrp === pgid : proc.pid === pgid);
        stop.members = procs.filter(inGroup).map(proc => proc.pid);
        stop.strays = procs.filter(proc => stop.related.has(proc.pid) && !inGroup(proc)).map(proc => proc.pid);
    }

    private survivors(stop: Stop): Survivor[] {
        const pids = new Set([...stop.members, ...stop.strays]);
        return [...pids].filter(pid => this.table.signal(pid, 0)).map(pid => ({ pid, command: this.table.commandOf(pid) }));
    }

    private finish(stop: Stop, survivors: Survivor[]): void {
        const report: StopReport = stop.listed ? { survivors } : { survivors, unconfirmed: UNCONFIRMED_NOTE };
        this.stops.delete(stop);
        if (this.stops.size === 0) {
            this.clock.clearInterval(this.timer);
            this.timer = undefined;
        }
        stop.resolve(report);
    }
}

const shared = new WeakMap<Clock, GroupStopper>();

/** The one stopper of a clock (the server's): every run stops through it. */
export function stopperFor(clock: Clock): GroupStopper {
    let stopper = shared.get(clock);
    if (!stopper) {
        stopper = new GroupStopper(clock);
        shared.set(clock, stopper);
    }
    return stopper;
}
