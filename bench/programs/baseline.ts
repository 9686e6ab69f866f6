// The benchmark's baseline: greet and slow_compute served with nothing but SDK 1.32.2's stock
// tasks support (McpServer, experimental.tasks.registerToolTask, InMemoryTaskStore, the default
// tasks/* handlers), over StreamableHTTPServerTransport on node:http or StdioServerTransport.
// Usage: node baseline.js --http --port 0   (prints {"url"} once listening)
//        node baseline.js --stdio
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();

function log(message: string): void {
    process.stderr.write(`${new Date().toISOString()} INFO  ${message}\n`);
}

function sleep(ms: number): Promise<void> {
    return new Promise(resolve => setTimeout(resolve, ms));
}

function buildServer(): McpServer {
    const server = new McpServer(
        { name: 'stock-baseline', version: '1.0.0' },
        { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
    );
    server.registerTool('greet', { title: 'Greet someone', description: 'Returns a one-line greeting.', inputSchema: { name: z.string().max(1000) } }, async ({ name }) => ({
        content: [{ type: 'text', text: `Hello, ${name}!` }],
    }));
    server.experimental.tasks.registerToolTask(
        'slow_compute',
        {
            title: 'Slow computation',
            description: 'Sleeps the given number of seconds, reporting progress once per second.',
            inputSchema: { seconds: z.number().min(0).max(86_400).default(3), label: z.string().max(200).default('default') },
            execution: { taskSupport: 'optional' },
        },
        {
            async createTask({ seconds, label }, extra) {
                const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl });
                const progressToken = extra._meta?.progressToken;
                const work = async () => {
                    const ticks = Math.ceil(seconds);
                    for (let i = 1; i <= ticks; i++) {
                        await sleep(Math.min(1, seconds - (i - 1)) * 1000);
                        // Stock tasks/cancel never signals the work: a tool notices only by looking at the store.
                        const now = await extra.taskStore.getTask(task.taskId);
                        if (now.status === 'cancelled') {
                            log(`[slow_compute] cancelled "${label}" at ${i - 1}/${ticks}`);
                            return;
                        }
                        if (progressToken !== undefined) {
                            // extra.sendNotification is unusable once CreateTaskResult went out; this goes to the GET stream.
                            await server.server
                                .notification({
                                    method: 'notifications/progress',
                                    params: { progressToken, progress: Math.min(i, seconds), total: seconds, message: `${label}: ${i}/${ticks} s`, _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } } },
                                })
                                .catch(() => undefined);
                        }
                    }
                    const summary = `Computation "${label}" completed after ${seconds} seconds. Result: 42.`;
                    await extra.taskStore
                        .storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: summary }], structuredContent: { summary, label, seconds, result: 42 } })
                        .catch(() => undefined);
                };
                // A task that expired or vanished simply stops.
                work().catch(() => undefined);
                return { task };
            },
            getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
            getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
        },
    );
    return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
            try {
                resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
            } catch (err) {
                reject(err);
            }
        });
        req.on('error', reject);
    });
}

/** The SDK example's session handling (simpleStreamableHttp.ts), on bare node:http instead of express. */
async function serveHttp(port: number): Promise<void> {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const http = createServer(async (req, res) => {
        try {
            const sessionId = req.headers['mcp-session-id'];
            const body = req.method === 'POST' ? await readJson(req) : undefined;
            let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
            if (!transport) {
                if (sessionId !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
                    res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad session' } }));
                    return;
                }
                const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: id => void transports.set(id, created) });
                created.onclose = () => {
                    if (created.sessionId) {
                        transports.delete(created.sessionId);
                    }
                };
                await buildServer().connect(created);
                transport = created;
            }
            await transport.handleRequest(req, res, body);
        } catch (err) {
            if (!res.headersSent) {
                res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
            }
        }
    });
    http.keepAliveTimeout = 65_000;
    await new Promise<void>(resolve => http.listen(port, '127.0.0.1', resolve));
    process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }) + '\n');
}

async function main(argv: string[]): Promise<void> {
    process.on('SIGTERM', () => process.exit(0));
    process.on('SIGINT', () => process.exit(0));
    if (argv.includes('--http')) {
        const at = argv.indexOf('--port');
        await serveHttp(at >= 0 ? Number(argv[at + 1]) : 0);
        return;
    }
    await buildServer().connect(new StdioServerTransport());
    process.stdin.once('end', () => process.exit(0));
}

main(process.argv.slice(2)).catch(err => {
    console.error(err);
    process.exit(1);
});
