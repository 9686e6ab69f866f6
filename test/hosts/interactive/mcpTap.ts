/**
 * A message tap between a host and our server over HTTP: a proxy on 127.0.0.1 that forwards each
 * request unchanged (but for Host, which the server checks against its own address) and records the
 * JSON-RPC it carries both ways, so a test asserts on what the host really sent (extensions
 * declared, tasks/get polls, tasks/cancel) instead of guessing it.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Feed } from '../../support/wait.js';

export interface TappedMessage {
    from: 'host' | 'server';
    /** One JSON-RPC message (a batch is split); SSE frames are read out of their `data:` lines. */
    message: Record<string, unknown>;
}

export interface McpTap {
    /** The URL to give the host in place of the server's. */
    url: string;
    feed: Feed<TappedMessage>;
    /** The methods the host sent, in order. */
    methodsSent(): string[];
    /** The first message the host sent with this method, when it comes. */
    sent(method: string, timeoutMs?: number): Promise<Record<string, unknown>>;
    close(): Promise<void>;
}

function messagesIn(text: string): Record<string, unknown>[] {
    const parse = (json: string): Record<string, unknown>[] => {
        try {
            const value: unknown = JSON.parse(json);
            return (Array.isArray(value) ? value : [value]).filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
        } catch {
            return [];
        }
    };
    const data = text.split('\n').filter(line => line.startsWith('data:'));
    return data.length > 0 ? data.flatMap(line => parse(line.slice(5).trim())) : parse(text);
}

export async function startMcpTap(serverUrl: string): Promise<McpTap> {
    const target = new URL(serverUrl);
    const feed = new Feed<TappedMessage>();
    const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
            const body = Buffer.concat(chunks);
            feed.push(...messagesIn(body.toString('utf8')).map(message => ({ from: 'host' as const, message })));
            const upstream = request(
                { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
                response => {
                    res.writeHead(response.statusCode ?? 502, response.headers);
                    // SSE frames may span chunks: parse each complete event as it ends.
                    let pending = '';
                    response.setEncoding('utf8');
                    response.on('data', (chunk: string) => {
                        res.write(chunk);
                        pending += chunk;
                        const events = pending.split('\n\n');
                        pending = events.pop() ?? '';
                        for (const event of events) {
                            feed.push(...messagesIn(event).map(message => ({ from: 'server' as const, message })));
                        }
                    });
                    response.on('end', () => {
                        feed.push(...messagesIn(pending).map(message => ({ from: 'server' as const, message })));
                        res.end();
                    });
                },
            );
            upstream.on('error', error => {
                res.writeHead(502).end(String(error));
            });
            upstream.end(body);
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}${target.pathname}`,
        feed,
        methodsSent: () => feed.items.filter(item => item.from === 'host' && typeof item.message.method === 'string').map(item => String(item.message.method)),
        sent: (method, timeoutMs) => feed.waitFor(item => item.from === 'host' && item.message.method === method, `the host to send ${method}`, timeoutMs).then(item => item.message),
        close: () =>
            new Promise(resolve => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}
