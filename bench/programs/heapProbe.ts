// In-process probe of the server library (server/src, bundled like dist/server.js): the server-side
// part of completion → tasks/result, live heap per working task after full GCs, and tasks/list
// latency among many other clients' tasks, without a transport or a second process in the way.
// Run with --expose-gc.
// Usage: node --expose-gc heapProbe.js FIRST LAST   (prints one JSON line)
import { PassThrough, Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { connectStdio, createTasksServer, defaultTools, isTerminal, PROTOCOL_2025, silentLogger } from '../../server/src/index.js';
import type { McpSession } from '../../server/src/mcp/rev2025/session.js';
import type { Transport } from '../../server/src/rpc/transport.js';

declare const gc: () => void;

function client(core: ReturnType<typeof createTasksServer>): McpSession {
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    return connectStdio(core, { input: new PassThrough(), output: sink }).session;
}

function percentile(samples: number[], p: number): number {
    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
    const [first, last] = process.argv.slice(2).map(Number) as [number, number];
    const core = createTasksServer({ tools: defaultTools(), logger: silentLogger, maxTasksPerClient: 10_000_000 });
    let id = 1;
    const sink: Transport = { send: () => true, close: () => undefined };
    const call = (session: McpSession, method: string, params: Record<string, unknown>) => session.rpc.handleRequest({ jsonrpc: '2.0', id: id++, method, params }, sink);
    const init = { protocolVersion: PROTOCOL_2025, capabilities: {}, clientInfo: { name: 'probe', version: '1' } };
    const clients = Array.from({ length: 10 }, () => client(core));
    for (const session of clients) {
        await call(session, 'initialize', init);
    }

    // Completion (the store's terminal event) → the pending tasks/result call resolves, on an idle server.
    const completedAt = new Map<string, number>();
    const watch = core.runtime.store.onEvent(event => {
        if (event.type === 'status' && isTerminal(event.task.status)) {
            completedAt.set(event.task.taskId, performance.now());
        }
    });
    const wakeups: number[] = [];
    for (let round = 0; round < 10; round++) {
        await Promise.all(
            Array.from({ length: 5 }, async () => {
                const created = await call(clients[0]!, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.05, label: 'wake' }, task: {} });
                const taskId = (created.result?.task as { taskId: string }).taskId;
                await call(clients[0]!, 'tasks/result', { taskId });
                wakeups.push(performance.now() - completedAt.get(taskId)!);
            }),
        );
    }
    watch.dispose();
    const settle = async () => {
        // Every task has ticked once; then only live objects remain.
        await new Promise(resolve => setTimeout(resolve, 1200));
        gc();
        gc();
        return process.memoryUsage();
    };
    let created = 0;
    const grow = async (target: number) => {
        while (created < target) {
            const batch = Math.min(64, target - created);
            await Promise.all(
                Array.from({ length: batch }, (_, j) =>
                    call(clients[(created + j) % clients.length]!, 'tools/call', { name: 'slow_compute', arguments: { seconds: 86_400, label: `probe-${(created + j) % 64}` }, task: {} }),
                ),
            );
            created += batch;
        }
    };
    await grow(first);
    const a = await settle();
    await grow(last);
    const b = await settle();

    const fresh = client(core);
    await call(fresh, 'initialize', init);
    for (let i = 0; i < 20; i++) {
        await call(fresh, 'tools/call', { name: 'slow_compute', arguments: { seconds: 86_400, label: `own-${i}` }, task: {} });
    }
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        const response = await call(fresh, 'tasks/list', {});
        latencies.push(performance.now() - t0);
        if ((response.result?.tasks as unknown[] | undefined)?.length !== 20) {
            throw new Error('tasks/list did not return the 20 own tasks');
        }
    }
    const span = last - first;
    process.stdout.write(
        JSON.stringify({
            heapPerTask: (b.heapUsed - a.heapUsed) / span,
            rssPerTask: (b.rss - a.rss) / span,
            listP50: percentile(latencies, 50),
            listP99: percentile(latencies, 99),
            tasks: last,
            wakeP50: percentile(wakeups, 50),
            wakeP99: percentile(wakeups, 99),
        }) + '\n',
    );
    process.exit(0);
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
});
