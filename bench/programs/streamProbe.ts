// In-process probe of what resumability costs per SSE stream (server/src, bundled like
// dist/server.js): one server, two HTTP endpoints on loopback, one with the replay window (the
// default) and one without (`replay: false`: no event ids, no priming event, nothing kept). Each
// call reports progress once and then answers, so each is one SSE stream. The client only counts
// the bytes it reads, so both sides cost it the same but for those bytes; CPU is the process's
// (client and server), taken in alternating blocks, so the difference is the server's.
// Also: bytes on the wire per stream; live heap held per finished stream while its events are in
// the window (after full GCs, beside the same streams on the endpoint without one); and, with no
// socket in the way, what an event's id and its place in the window cost against the same event
// framed without (the part of the CPU figure that the machine's noise cannot hide).
// Run with --expose-gc. Usage: node --expose-gc streamProbe.js CALLS_PER_BLOCK BLOCKS   (prints one JSON line)
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createTasksServer, defineTool, listenHttp, PROTOCOL_2025, silentLogger, systemClock, textResult, type HttpHandle } from '../../server/src/index.js';
import type { JsonRpcMessage } from '../../server/src/rpc/messages.js';
import { frame } from '../../server/src/transports/sseOutbox.js';
import { REPLAY_LIMITS, ReplayWindow } from '../../server/src/transports/sseReplay.js';
import { median } from '../lib/stats.js';

declare const gc: () => void;

const CONCURRENCY = 8;
/** Streams whose events each session's window holds for the heap figure: two events each, inside its 1,000. */
const HELD_STREAMS = 400;
/** Sessions that hold them: enough streams that a few hundred KB of heap noise stay small beside them. */
const HELD_SESSIONS = 10;

const tick = defineTool({
    name: 'tick',
    title: 'tick',
    description: 'Reports progress once, then answers.',
    inputSchema: z.object({}),
    taskSupport: 'forbidden',
    async run(_args, ctx) {
        ctx.progress(1, 1, 'ticked');
        return textResult('ticked');
    },
});

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(url: URL, headers: Record<string, string>, body: string): Promise<{ sessionId?: string; bytes: number; type: string }> {
    return new Promise((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, res => {
            let bytes = 0;
            res.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('end', () => resolve({ sessionId: res.headers['mcp-session-id'] as string | undefined, bytes, type: String(res.headers['content-type']) }));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
    });
}

/** A 2025-11-25 session on `handle`; each call is one stream (progress, then the result), resolving with its bytes. */
async function session(handle: HttpHandle): Promise<() => Promise<number>> {
    const url = new URL(handle.url);
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await post(url, base, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_2025, capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }));
    const headers = { ...base, 'mcp-session-id': init.sessionId!, 'mcp-protocol-version': PROTOCOL_2025 };
    await post(url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    let id = 1;
    return async () => {
        const reply = await post(url, headers, `{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"tick","arguments":{},"_meta":{"progressToken":1}}}`);
        if (!reply.type.startsWith('text/event-stream')) {
            throw new Error(`not a stream: ${reply.type}`);
        }
        return reply.bytes;
    };
}

async function calls(count: number, one: () => Promise<number>): Promise<number> {
    let next = 0;
    let bytes = 0;
    await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
            while (next++ < count) {
                // Not `bytes += await one()`: that reads `bytes` before the await, losing the other workers' sums.
                const read = await one();
                bytes += read;
            }
        }),
    );
    return bytes / count;
}

/** CPU µs per stream over `count` streams. */
async function cpuPerStream(count: number, one: () => Promise<number>): Promise<number> {
    const cpu0 = process.cpuUsage();
    await calls(count, one);
    const used = process.cpuUsage(cpu0);
    return (used.user + used.system) / count;
}

/** ns per event: framed with an id and kept in a window (which drops as it goes, past 1,000), minus framed alone. */
function windowNsPerEvent(events: number): number {
    const message: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 1, message: 'ticked' } };
    const stream = new ReplayWindow(systemClock, REPLAY_LIMITS, silentLogger).open({ resume: () => undefined }, true);
    // CPU time, not wall time: on a busy machine the wall clock also counts other processes' turns.
    const time = (framed: () => string) => {
        let length = 0;
        const cpu0 = process.cpuUsage();
        for (let i = 0; i < events; i++) {
            length += framed().length;
        }
        const used = process.cpuUsage(cpu0);
        return length > 0 ? ((used.user + used.system) * 1000) / events : NaN;
    };
    const samples: number[] = [];
    for (let round = 0; round < 5; round++) {
        samples.push(time(() => stream.frame(message)) - time(() => frame(message)));
    }
    return median(samples);
}

function liveHeap(): number {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
    const [perBlock, blocks] = process.argv.slice(2, 4).map(Number) as [number, number];
    const core = createTasksServer({ tools: [tick], logger: silentLogger });
    const options = { host: '127.0.0.1', port: 0, bodyLimitBytes: 1 << 20, sessionIdleMs: 3_600_000 };
    const resumable = await listenHttp(core, options);
    const plain = await listenHttp(core, { ...options, replay: false });
    const sides = { resumable: await session(resumable), plain: await session(plain) };

    const resumableBytes = await calls(500, sides.resumable);
    const plainBytes = await calls(500, sides.plain);
    const cpu: Record<keyof typeof sides, number[]> = { resumable: [], plain: [] };
    const extra: number[] = [];
    const started = performance.now();
    for (let block = 0; block < blocks; block++) {
        // Which side goes first alternates, so a drift in the machine's speed falls on both; the
        // difference is taken within each pair of neighbouring blocks, then its median.
        const order: (keyof typeof sides)[] = block % 2 === 0 ? ['resumable', 'plain'] : ['plain', 'resumable'];
        for (const side of order) {
            cpu[side].push(await cpuPerStream(perBlock, sides[side]));
        }
        extra.push(cpu.resumable.at(-1)! - cpu.plain.at(-1)!);
    }
    const seconds = (performance.now() - started) / 1000;

    // Fresh sessions, so each window holds exactly the streams counted here.
    const heldOn = async (handle: HttpHandle) => {
        const ones = await Promise.all(Array.from({ length: HELD_SESSIONS }, () => session(handle)));
        const before = liveHeap();
        for (const one of ones) {
            await calls(HELD_STREAMS, one);
        }
        return (liveHeap() - before) / (HELD_STREAMS * HELD_SESSIONS);
    };
    const heapResumable = await heldOn(resumable);
    const heapPlain = await heldOn(plain);

    const windowNs = windowNsPerEvent(200_000);

    const resumableCpuUs = median(cpu.resumable);
    const plainCpuUs = median(cpu.plain);
    process.stdout.write(
        JSON.stringify({
            resumableCpuUs,
            plainCpuUs,
            extraCpuUs: median(extra),
            resumableBytes,
            plainBytes,
            extraBytes: resumableBytes - plainBytes,
            heldBytes: heapResumable - heapPlain,
            heldBytesResumable: heapResumable,
            heldBytesPlain: heapPlain,
            windowNsPerEvent: windowNs,
            streamsPerSecond: (2 * blocks * perBlock) / seconds,
        }) + '\n',
    );
    agent.destroy();
    process.exit(0);
}

main().catch(err => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
});
