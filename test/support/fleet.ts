/** Servers and clients that a suite starts in its before hook and ends in its after hook. */
import { after } from 'node:test';
import { connect, startHttpServer, type ClientOptions, type Connected, type HttpServer, type TransportKind } from './helpers.js';
import { startRedis, type RedisServer } from './redisHelpers.js';

/** Everything one suite started; close() ends it all, clients first, Redis last, even after a before that failed halfway. */
export class Fleet {
    private readonly servers: HttpServer[] = [];
    private readonly clients: Connected[] = [];
    private readonly stores: RedisServer[] = [];

    /** A fleet the enclosing describe closes in its after hook. */
    static forSuite(): Fleet {
        const fleet = new Fleet();
        after(() => fleet.close());
        return fleet;
    }

    /** A Redis of its own, stopped after the servers that use it. */
    async redis(): Promise<RedisServer> {
        const redis = await startRedis();
        this.stores.push(redis);
        return redis;
    }

    async server(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServer> {
        const server = await startHttpServer(args, env);
        this.servers.push(server);
        return server;
    }

    async client(server: HttpServer, options: ClientOptions = {}): Promise<Connected> {
        const client = await connect('http', server, options);
        this.clients.push(client);
        return client;
    }

    /** A client on `server` for each of `options`, connected one after another. */
    async connectAll<T extends ClientOptions[]>(server: HttpServer, ...options: T): Promise<{ [K in keyof T]: Connected }> {
        const connected: Connected[] = [];
        for (const each of options) {
            connected.push(await this.client(server, each));
        }
        return connected as { [K in keyof T]: Connected };
    }

    async close(): Promise<void> {
        await Promise.all(this.clients.map(c => c.close().catch(() => undefined)));
        await Promise.all(this.servers.map(s => s.stop()));
        await Promise.all(this.stores.map(r => r.stop()));
    }
}

/** A client with a server of its own: a stdio child, or an HTTP server started for it. close() ends both. */
export async function connectAlone(kind: TransportKind, options: ClientOptions = {}): Promise<Connected & { server?: HttpServer }> {
    const server = kind === 'http' ? await startHttpServer() : undefined;
    try {
        const client = await connect(kind, server, options);
        return {
            ...client,
            server,
            close: async () => {
                await client.close();
                await server?.stop();
            },
        };
    } catch (err) {
        await server?.stop();
        throw err;
    }
}
