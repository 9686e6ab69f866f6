/**
 * What the soak expects of every task it makes, and what it saw. A task counts once, by how it
 * ended: as the tool says (completed, failed, cancelled), expired on time, or ended with words by a
 * replica's restart. LOST is a task that vanished (not found) before anyone saw it end, or that
 * never ended; doubled is a task seen ending twice differently; wrong is a result other than the
 * tool's.
 */
export type Outcome = 'completed' | 'failed' | 'cancelled' | 'expired' | 'restarted' | 'lost' | 'doubled' | 'wrong';

export const OUTCOMES: readonly Outcome[] = ['completed', 'failed', 'cancelled', 'expired', 'restarted', 'lost', 'doubled', 'wrong'];

/** Words a task ends with when the replica that ran it died: a restart under its id, or a lapsed lease. */
export const ENDED_BY_RESTART = /^(Replica \S+ restarted; the work of this task was lost with its previous process|Worker \S+ stopped responding \(no heartbeat within its \d+ ms lease\); the work of this task was lost)$/;

interface Entry {
    /** The status first seen terminal, with its message. */
    ended?: { status: string; message?: string };
    outcome?: Outcome;
    note?: string;
}

export class Ledger {
    private readonly tasks = new Map<string, Entry>();
    readonly counts: Record<Outcome, number> = Object.fromEntries(OUTCOMES.map(o => [o, 0])) as Record<Outcome, number>;
    /** A few examples of what went wrong, for the report. */
    readonly problems: string[] = [];

    open(taskId: string): void {
        this.tasks.set(taskId, {});
    }

    /** A status read: a terminal one fixes the task's end; a different terminal one later is a doubled end. */
    status(taskId: string, status: string, message?: string): void {
        const entry = this.tasks.get(taskId);
        if (!entry || !['completed', 'failed', 'cancelled'].includes(status)) {
            return;
        }
        if (!entry.ended) {
            entry.ended = { status, message };
        } else if (entry.ended.status !== status) {
            this.settle(taskId, 'doubled', `seen ${entry.ended.status}, then ${status}`);
        }
    }

    /** How it ended, once; a later, different verdict for the same task only counts if it is a fault. */
    settle(taskId: string, outcome: Outcome, note?: string): void {
        const entry = this.tasks.get(taskId);
        if (!entry) {
            return;
        }
        if (entry.outcome !== undefined) {
            if (entry.outcome === outcome || !['lost', 'doubled', 'wrong'].includes(outcome)) {
                return;
            }
            this.counts[entry.outcome]--;
        }
        entry.outcome = outcome;
        this.counts[outcome]++;
        if (['lost', 'doubled', 'wrong'].includes(outcome) && this.problems.length < 20) {
            this.problems.push(`${outcome} ${taskId}: ${note ?? ''}`);
        }
    }

    /** Tasks without a verdict (still followed when the soak stopped): each is LOST. */
    closeOpen(): number {
        let open = 0;
        for (const [taskId, entry] of this.tasks) {
            if (entry.outcome === undefined) {
                open++;
                this.settle(taskId, 'lost', `no end seen (${entry.ended ? `last seen ${entry.ended.status}` : 'never seen ending'})`);
            }
        }
        return open;
    }

    get total(): number {
        return this.tasks.size;
    }
}
