import { textResult, type CallToolResult, type ToolContext } from '../tools/types.js';
import type { LogEntry } from './logs.js';
import type { CommandSpec } from './spec.js';
import { DEFAULT_MAX_COMMAND_PROCESSES } from '../defaults.js';
export { DEFAULT_MAX_COMMAND_PROCESSES };

interface Waiter {
    resolve(): void;
    reject(reason: unknown): void;
    signal: AbortSignal;
    onAbort(): void;
}

/** A counting semaphore: first come, first served; a waiter whose call is cancelled leaves the line. */
export class Slots {
    private used = 0;
    private readonly line: Waiter[] = [];

    constructor(public max: number) {}

    get busy(): boolean {
        return this.used >= this.max;
    }

    get waiting(): number {
        return this.line.length;
    }

    /** Resolves once a slot is this caller's (release it with `release`); rejects with the signal's reason if it aborts first. */
    take(signal: AbortSignal): Promise<void> {
        if (signal.aborted) {
            return Promise.reject(signal.reason);
        }
        if (this.used < this.max && this.line.length === 0) {
            this.used++;
            return Promise.resolve();
        }
        return new Promise((resolve, reject) => {
            const waiter: Waiter = {
                resolve,
                reject,
                signal,
                onAbort: () => {
                    this.line.splice(this.line.indexOf(waiter), 1);
                    reject(signal.reason);
                },
            };
            signal.addEventListener('abort', waiter.onAbort, { once: true });
            this.line.push(waiter);
        });
    }

    release(): void {
        this.used--;
        while (this.used < this.max && this.line.length > 0) {
            const next = this.line.shift()!;
            next.signal.removeEventListener('abort', next.onAbort);
            this.used++;
            next.resolve();
        }
    }
}

/** A run in progress that an identical call may follow (whenBusy "attach"). */
interface Running {
    taskId?: string;
    log?: LogEntry;
    /** Followers that came before the log was opened (the run was queued). */
    followers: ((log: LogEntry) => void)[];
    result: Promise<CallToolResult>;
}

/** One command's runs: its concurrency slots and the runs identical calls may follow. */
class CommandGate {
    readonly running = new Map<string, Running>();
    slots?: Slots;
}

/**
 * Where a command's run waits its turn: the command's own `concurrency` (with `whenBusy`), then
 * the server's cap on command processes. Gates are kept by command name, so a reloaded file keeps
 * counting the runs already going.
 */
export class CommandLimits {
    readonly processes: Slots;
    private readonly gates = new Map<string, CommandGate>();

    constructor(maxProcesses = DEFAULT_MAX_COMMAND_PROCESSES) {
        this.processes = new Slots(maxProcesses);
    }

    /** Runs `start` once the command and the server have room; `start` gets a hook to publish its log for followers. */
    async run(spec: CommandSpec, argv: string[], ctx: ToolContext, start: (opened: (log: LogEntry) => void) => Promise<CallToolResult>, follow: (log: LogEntry) => void): Promise<CallToolResult> {
        const gate = this.gate(spec);
        const key = JSON.stringify(argv);
        const leader = spec.whenBusy === 'attach' ? gate.running.get(key) : undefined;
        if (leader) {
            if (leader.log) {
                follow(leader.log);
            } else {
                leader.followers.push(follow);
            }
            return followRun(leader, ctx);
        }
        if (spec.whenBusy === 'reject' && gate.slots?.busy) {
            return textResult(`Not run: ${spec.name} is busy (${gate.slots.max} run(s) at once, its concurrency); try again when one has ended.`, true);
        }
        // Known at once, queued or not, so an identical call coming meanwhile follows it.
        const running = { taskId: ctx.taskId, followers: [] as Running['followers'] } as Running;
        const opened = (log: LogEntry): void => {
            running.log = log;
            running.followers.splice(0).forEach(follow => follow(log));
        };
        running.result = this.inTurn(spec, gate.slots, ctx, () => start(opened));
        if (spec.whenBusy === 'attach') {
            gate.running.set(key, running);
        }
        try {
            return await running.result;
        } finally {
            if (gate.running.get(key) === running) {
                gate.running.delete(key);
            }
        }
    }

    /** Waits for a slot of the command (if it has a concurrency) and one of the server, then runs. */
    private async inTurn(spec: CommandSpec, own: Slots | undefined, ctx: ToolContext, start: () => Promise<CallToolResult>): Promise<CallToolResult> {
        if (own?.busy) {
            ctx.progress(0, undefined, `Queued: ${spec.name} runs at most ${own.max} at once; ${own.waiting + 1} waiting`);
        }
        await own?.take(ctx.signal);
        try {
            if (this.processes.busy) {
                ctx.progress(0, undefined, `Queued: the server runs at most ${this.processes.max} commands at once (--max-command-processes); ${this.processes.waiting + 1} waiting`);
            }
            await this.processes.take(ctx.signal);
            try {
                return await start();
            } finally {
                this.processes.release();
            }
        } finally {
            own?.release();
        }
    }

    private gate(spec: CommandSpec): CommandGate {
        let gate = this.gates.get(spec.name);
        if (!gate) {
            gate = new CommandGate();
            this.gates.set(spec.name, gate);
        }
        if (spec.concurrency === undefined) {
            gate.slots = undefined;
        } else if (gate.slots) {
            gate.slots.max = spec.concurrency;
        } else {
            gate.slots = new Slots(spec.concurrency);
        }
        return gate;
    }
}

/** A second identical call: the running job's result, said to be shared; its own cancel only stops following. */
async function followRun(leader: Running, ctx: ToolContext): Promise<CallToolResult> {
    const from = leader.taskId ? `task ${leader.taskId}` : 'an inline call';
    ctx.progress(0, undefined, `Following the identical run already going (${from})`);
    const stopped = new Promise<never>((_, reject) => {
        if (ctx.signal.aborted) {
            reject(ctx.signal.reason);
        }
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    });
    // A cancel after the run ended rejects this too, with nobody left to catch it.
    stopped.catch(() => undefined);
    let result: CallToolResult;
    try {
        result = await Promise.race([leader.result, stopped]);
    } catch (err) {
        if (ctx.signal.aborted) {
            throw err;
        }
        return textResult(`The identical run this call followed (${from}) was stopped before it ended; call again to run it.`, true);
    }
    const [first, ...rest] = result.content;
    const note = `(Shared: an identical call was already running as ${from}; this is its result.)`;
    const content = first?.type === 'text' ? [{ ...first, text: `${first.text}\n${note}` }, ...rest] : [...result.content, { type: 'text' as const, text: note }];
    return { ...result, content };
}
