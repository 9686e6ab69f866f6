import type { Clock, ClockTimer } from '../util/clock.js';
import { systemProcessTable, type ProcessTable, type ScannedProcess } from './processTable.js';

/** How often the shared poller looks at every stopping group: one signal 0 each, no /proc reads. */
const TICK_MS = 20;
/** How often /proc is read again while stops are under way, for descendants that appeared since and for zombies. */
const RESCAN_MS = 500;
/** After SIGKILL, how long what is left gets to disappear before the stop gives up and names it. */
export const KILL_WAIT_MS = 400;

/** A process a stop could not end. */
export interface Survivor {
    pid: number;
    command: string;
}

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
    killed = false;
    /** Set once a scan that started after this stop began has come back. */
    scanned = false;
    /** The group's live members and the marked processes outside it (strays), by the latest scan. */
    members: number[] = [];
    strays: number[] = [];
    readonly killAt: number;
    readonly giveUpAt: number;
    readonly done: Promise<Survivor[]>;
    resolve!: (survivors: Survivor[]) => void;

    constructor(
        readonly target: StopTarget,
        readonly startedAt: number,
    ) {
        this.killAt = startedAt + target.graceMs;
        this.giveUpAt = this.killAt + KILL_WAIT_MS;
        this.done = new Promise(resolve => (this.resolve = resolve));
    }
}

/**
 * Stops process groups and the descendants that left them: SIGTERM, then SIGKILL after each
 * target's grace. One poller serves every stop under way. Each tick asks each group whether it has
 * members (a signal 0, whatever the number of processes on the machine); /proc is read, without
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
        private readonly table: ProcessTable = systemProcessTable,
    ) {}

    /** When process `pid` started, for StopTarget.since: read right after spawning it. */
    startTimeOf(pid: number): number {
        return this.table.startTimeOf(pid);
    }

    /** Resolves with the processes that could not be stopped (usually none). */
    stop(target: StopTarget): Promise<Survivor[]> {
        const stop = new Stop(target, this.clock.now());
        this.table.signal(-target.pgid, 'SIGTERM');
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
            if (!stop.killed && now >= stop.killAt) {
                this.kill(stop);
            }
            stop.strays = stop.strays.filter(pid => this.table.signal(pid, 0));
            if (stop.exited && stop.scanned && !this.groupLeft(stop) && stop.strays.length === 0) {
                this.finish(stop, []);
            } else if (now >= stop.giveUpAt) {
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
        if (!this.table.signal(-pgid, 0)) {
            return false;
        }
        if (stop.scanned && stop.members.length === 0) {
            this.table.signal(-pgid, 'SIGKILL');
            return false;
        }
        return true;
    }

    private kill(stop: Stop): void {
        stop.killed = true;
        this.table.signal(-stop.target.pgid, 'SIGKILL');
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
            if (procs === undefined) {
                // No /proc: the group's answer to a signal 0 is all there is.
                stop.members = [pgid];
                continue;
            }
            stop.members = procs.filter(proc => proc.pgrp === pgid).map(proc => proc.pid);
            const known = new Set(stop.strays);
            stop.strays = procs.filter(proc => proc.marker === marker && proc.pgrp !== pgid).map(proc => proc.pid);
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

    private survivors(stop: Stop): Survivor[] {
        const pids = new Set([...stop.members, ...stop.strays]);
        return [...pids].filter(pid => this.table.signal(pid, 0)).map(pid => ({ pid, command: this.table.commandOf(pid) }));
    }

    private finish(stop: Stop, survivors: Survivor[]): void {
        this.stops.delete(stop);
        if (this.stops.size === 0) {
            this.clock.clearInterval(this.timer);
            this.timer = undefined;
        }
        stop.resolve(survivors);
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
