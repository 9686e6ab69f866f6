/**
 * The soak's load: eight kinds of client, each a loop that runs until the deadline, against one
 * site (one server, or replicas sharing Redis). Every task made goes in the ledger and is followed
 * to its end; a client whose server died reconnects to a live one and follows its tasks there.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ENDED_BY_RESTART, Ledger } from './ledger.js';
import type { SoakServer } from './servers.js';

export const FAILING_TEXT = 'Job failed: the simulated worker crashed after 1 second (this tool always fails, to demonstrate task failure)';
const NOT_FOUND = -32602;
/** The longest a task is followed after the deadline before it counts as never ended. */
const FOLLOW_AFTER_DEADLINE_MS = 90_000;

type Expect = { status: 'completed' | 'failed' | 'cancelled'; text?: string | RegExp; structured?: (value: Record<string, unknown>) => boolean };

/** What the loops share: the servers, the ledger, the latencies of this interval and the stop signal. */
export class Site {
    readonly ledger = new Ledger();
    latencies: number[] = [];
    stopping = false;
    /** Set when the deadline passed: the loops make nothing new; followers give up at `giveUpAt`. */
    giveUpAt = Infinity;

    constructor(
        readonly name: string,
        readonly servers: SoakServer[],
    ) {}

    /** A connected client, on the `preferred`-th server if it answers, else on any that does. */
    async client(preferred: number): Promise<Client> {
        for (let attempt = 0; ; attempt++) {
            const server = this.servers[(preferred + attempt) % this.servers.length]!;
            try {
                return await server.connect();
            } catch (err) {
                if (Date.now() > this.giveUpAt) {
                    throw err;
                }
                await delay(attempt < this.servers.length ? 50 : 500);
            }
        }
    }

    /** Times one request into this interval's latencies. */
    async timed<T>(request: () => Promise<T>): Promise<T> {
        const started = performance.now();
        const value = await request();
        this.latencies.push(performance.now() - started);
        return value;
    }
}

/** One client of the mix: its connection, replaced when its server dies. */
class Driver {
    private current?: Client;

    constructor(
        private readonly site: Site,
        private readonly index: number,
    ) {}

    async client(): Promise<Client> {
        this.current ??= await this.site.client(this.index);
        return this.current;
    }

    /** The server went away (or the session did): the next request reconnects, to another server first. */
    async dropped(): Promise<void> {
        const old = this.current;
        this.current = undefined;
        if (old && this.site.servers[0]!.transport === 'http') {
            await old.close().catch(() => undefined);
        }
    }

    async greet(name: string): Promise<void> {
        const client = await this.client();
        const result = (await this.site.timed(() => client.callTool({ name: 'greet', arguments: { name } }))) as CallToolResult;
        const text = (result.content[0] as { text?: string } | undefined)?.text ?? '';
        if (!text.includes(name)) {
            throw new Error(`greet answered "${text}" for ${name}`);
        }
    }

    /** Makes a task, or undefined when the server died under the request (nothing known was made). */
    async create(name: string, args: Record<string, unknown>, ttl?: number): Promise<string | undefined> {
        try {
            const client = await this.client();
            const { task } = await this.site.timed(() =>
                client.request({ method: 'tools/call', params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } }, CreateTaskResultSchema),
            );
            this.site.ledger.open(task.taskId);
            return task.taskId;
        } catch {
            await this.dropped();
            return undefined;
        }
    }

    /** tasks/get, through whichever server answers; undefined when the task is not found. */
    async get(taskId: string): Promise<{ status: string; statusMessage?: string } | undefined> {
        for (;;) {
            try {
                const client = await this.client();
                const task = await this.site.timed(() => client.experimental.tasks.getTask(taskId));
                this.site.ledger.status(taskId, task.status, task.statusMessage);
                return task;
            } catch (err) {
                if ((err as { code?: number }).code === NOT_FOUND) {
                    return undefined;
                }
                await this.dropped();
                if (Date.now() > this.site.giveUpAt) {
                    throw err;
                }
                await delay(200);
            }
        }
    }

    async cancel(taskId: string): Promise<void> {
        try {
            const client = await this.client();
            await this.site.timed(() => client.experimental.tasks.cancelTask(taskId));
        } catch (err) {
            if ((err as { code?: number }).code === undefined) {
                await this.dropped();
            }
            // A refusal (it had already ended) is fine: the follower reads how it ended.
        }
    }

    /**
     * Follows a task to its end (waiting in tasks/result, or polling tasks/get every `pollMs`) and
     * settles it in the ledger against what the tool should have produced.
     */
    async follow(taskId: string, expect: Expect, pollMs?: number): Promise<void> {
        const ledger = this.site.ledger;
        for (;;) {
            if (Date.now() > this.site.giveUpAt) {
                ledger.settle(taskId, 'lost', 'never ended');
                return;
            }
            let task: { status: string; statusMessage?: string } | undefined;
            try {
                task = await this.get(taskId);
            } catch {
                continue;
            }
            if (task === undefined) {
                ledger.settle(taskId, 'lost', 'not found before any end was seen');
                return;
            }
            if (['completed', 'failed', 'cancelled'].includes(task.status)) {
                await this.settle(taskId, task, expect);
                return;
            }
            if (pollMs !== undefined) {
                await delay(pollMs);
                continue;
            }
            try {
                const client = await this.client();
                await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
            } catch (err) {
                if ((err as { code?: number }).code === undefined) {
                    await this.dropped();
                }
            }
        }
    }

    private async settle(taskId: string, task: { status: string; statusMessage?: string }, expect: Expect): Promise<void> {
        const ledger = this.site.ledger;
        if (task.status === 'failed' && ENDED_BY_RESTART.test(task.statusMessage ?? '')) {
            ledger.settle(taskId, 'restarted');
            return;
        }
        if (task.status !== expect.status) {
            ledger.settle(taskId, 'wrong', `ended ${task.status} (${task.statusMessage ?? ''}), expected ${expect.status}`);
            return;
        }
        if (expect.status !== 'cancelled') {
            let result: CallToolResult | undefined;
            while (result === undefined) {
                try {
                    const client = await this.client();
                    result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
                } catch (err) {
                    const code = (err as { code?: number }).code;
                    // The server went away between the status and the result (a replica killed): read it through another.
                    if (code === undefined && Date.now() < this.site.giveUpAt) {
                        await this.dropped();
                        await delay(200);
                        continue;
                    }
                    ledger.settle(taskId, code === NOT_FOUND ? 'lost' : 'wrong', `its result could not be read: ${String(err)}`);
                    return;
                }
            }
            const text = (result.content[0] as { text?: string } | undefined)?.text ?? '';
            const textOk = expect.text === undefined || (typeof expect.text === 'string' ? text === expect.text : expect.text.test(text));
            const structuredOk = expect.structured === undefined || (result.structuredContent !== undefined && expect.structured(result.structuredContent));
            if (!textOk || !structuredOk) {
                ledger.settle(taskId, 'wrong', `result "${text.slice(0, 200)}"`);
                return;
            }
        }
        ledger.settle(taskId, expect.status);
        // Read once more: an end must not change.
        await this.get(taskId).catch(() => undefined);
    }
}

interface LoopContext {
    site: Site;
    deadline: number;
    random: () => number;
}

/** Runs `body` again and again until the deadline, `everyMs` apart; a failed round is counted and the loop goes on. */
async function loop(ctx: LoopContext, everyMs: number, errors: string[], body: (round: number) => Promise<void>): Promise<void> {
    for (let round = 0; Date.now() < ctx.deadline && !ctx.site.stopping; round++) {
        try {
            await body(round);
        } catch (err) {
            if (errors.length < 20) {
                errors.push(String(err));
            }
        }
        await delay(everyMs);
    }
}

/** Every loop of the mix against `site`; resolves when all have stopped and every task was followed to its end. */
export async function runMix(site: Site, deadline: number, random: () => number, commandTool?: string): Promise<{ errors: string[] }> {
    const ctx: LoopContext = { site, deadline, random };
    site.giveUpAt = deadline + FOLLOW_AFTER_DEADLINE_MS;
    const errors: string[] = [];
    const http = site.servers[0]!.transport === 'http';
    const driver = (index: number) => new Driver(site, index);
    const followers: Promise<void>[] = [];
    const seconds = () => 1 + Math.floor(random() * 3);
    const loops: Promise<void>[] = [];

    if (http) {
        // Sessions that come, greet once, and go: half DELETE their session, half just drop it.
        loops.push(
            loop(ctx, 500, errors, async round => {
                const client = await site.client(round);
                await site.timed(() => client.callTool({ name: 'greet', arguments: { name: `visitor ${round}` } }));
                if (round % 2 === 0) {
                    await (client.transport as { terminateSession?: () => Promise<void> }).terminateSession?.();
                }
                await client.close();
            }),
        );
    }
    const greeter = driver(1);
    loops.push(
        loop(ctx, 20, errors, async round => {
            try {
                await greeter.greet(`Ada ${round}`);
            } catch (err) {
                await greeter.dropped();
                throw err;
            }
        }),
    );
    const polled = driver(2);
    loops.push(
        loop(ctx, 300, errors, async round => {
            const s = seconds();
            const taskId = await polled.create('slow_compute', { seconds: s, label: `polled ${round}` });
            if (taskId) {
                await polled.follow(taskId, { status: 'completed', text: `Computation "polled ${round}" completed after ${s} seconds. Result: 42.` }, 500);
            }
        }),
    );
    const awaited = driver(3);
    loops.push(
        loop(ctx, 300, errors, async round => {
            const s = seconds();
            const taskId = await awaited.create('slow_compute', { seconds: s, label: `awaited ${round}` });
            if (taskId) {
                await awaited.follow(taskId, { status: 'completed', text: `Computation "awaited ${round}" completed after ${s} seconds. Result: 42.` });
            }
        }),
    );
    const canceller = driver(4);
    loops.push(
        loop(ctx, 700, errors, async round => {
            const taskId = await canceller.create('slow_compute', { seconds: 30, label: `cancelled ${round}` });
            if (taskId) {
                await delay(300 + random() * 1000);
                await canceller.cancel(taskId);
                await canceller.follow(taskId, { status: 'cancelled' }, 300);
            }
        }),
    );
    const failing = driver(5);
    loops.push(
        loop(ctx, 800, errors, async () => {
            const taskId = await failing.create('failing_job', {});
            if (taskId) {
                await failing.follow(taskId, { status: 'failed', text: FAILING_TEXT });
            }
        }),
    );
    // Tasks left to expire: read once ended, then not again until well after their TTL.
    const expiring = driver(6);
    loops.push(
        loop(ctx, 1000, errors, async round => {
            const taskId = await expiring.create('slow_compute', { seconds: 0, label: `expiring ${round}` }, 3000);
            if (!taskId) {
                return;
            }
            followers.push(
                (async () => {
                    const task = await expiring.get(taskId);
                    if (task === undefined) {
                        site.ledger.settle(taskId, 'lost', 'gone before its TTL');
                        return;
                    }
                    await delay(3000 + 4000);
                    for (let check = 0; check < 30; check++) {
                        if ((await expiring.get(taskId).catch(() => null)) === undefined) {
                            site.ledger.settle(taskId, 'expired');
                            return;
                        }
                        await delay(1000);
                    }
                    site.ledger.settle(taskId, 'wrong', 'still there 37 s after a 3 s TTL');
                })().catch(err => void errors.push(String(err))),
            );
        }),
    );
    const lister = driver(7);
    loops.push(
        loop(ctx, 2000, errors, async () => {
            let cursor: string | undefined;
            try {
                const client = await lister.client();
                do {
                    const page = await site.timed(() => client.experimental.tasks.listTasks(cursor));
                    cursor = page.nextCursor;
                } while (cursor);
            } catch (err) {
                await lister.dropped();
                throw err;
            }
        }),
    );
    if (commandTool) {
        const runner = driver(8);
        loops.push(
            loop(ctx, 3000, errors, async round => {
                const taskId = await runner.create(commandTool, { round: String(round) });
                if (!taskId) {
                    return;
                }
                if (round % 4 === 3) {
                    await delay(500 + random() * 500);
                    await runner.cancel(taskId);
                    // A run may end on its own before the cancel lands: either end is right.
                    const task = await runner.get(taskId).catch(() => undefined);
                    const status = task?.status === 'completed' ? 'completed' : 'cancelled';
                    await runner.follow(taskId, { status, ...(status === 'completed' ? { structured: ok } : {}) }, 300);
                } else {
                    await runner.follow(taskId, { status: 'completed', structured: ok });
                }
            }),
        );
    }
    await Promise.all(loops);
    await Promise.all(followers);
    return { errors };
}

function ok(structured: Record<string, unknown>): boolean {
    return structured.exitCode === 0 && structured.logLines === 40;
}

/**
 * Starts `count` long tasks on the site's `on`-th server (so that some are surely running there when
 * it is killed) and follows each from the `from`-th: they can only end by that server's death.
 */
export async function leaveRunning(site: Site, on: number, from: number, count: number): Promise<{ ended: Promise<void> }> {
    const maker = new Driver(site, on);
    const follower = new Driver(site, from);
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
        const taskId = await maker.create('slow_compute', { seconds: 600, label: `left running ${n}` });
        if (taskId) {
            ids.push(taskId);
        }
    }
    await maker.dropped();
    // Wrapped: an async function that returned the promise itself would wait for it.
    return { ended: Promise.all(ids.map(taskId => follower.follow(taskId, { status: 'completed' }, 500))).then(() => undefined) };
}
