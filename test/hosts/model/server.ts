/**
 * A scripted model on 127.0.0.1 (port 0) that speaks the four model APIs the hosts use, answers
 * from a script, and records every request: what a host hands the model after a tool call is
 * exactly what a real model would read.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { Feed } from '../../support/wait.js';
import { anthropic } from './anthropic.js';
import { chat } from './chat.js';
import type { Dialect } from './dialect.js';
import { json } from './dialect.js';
import { gemini } from './gemini.js';
import { responses } from './responses.js';
import { decideReply, Recording, type RecordedRequest, type Turn } from './script.js';

const DIALECTS: Dialect[] = [anthropic, responses, gemini, chat];

/** A request no dialect claimed (kept so a run shows what a host asked for that we do not speak). */
export interface StrayRequest {
    method: string;
    url: string;
}

export interface ScriptedModel {
    /** `http://127.0.0.1:<port>` */
    url: string;
    recording: Recording;
    /** Each conversation request as it arrives. */
    feed: Feed<RecordedRequest>;
    strays: StrayRequest[];
    close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
        chunks.push(chunk as Buffer);
    }
    let raw = Buffer.concat(chunks);
    // Some hosts compress request bodies.
    const encoding = req.headers['content-encoding'];
    raw = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'deflate' ? inflateSync(raw) : encoding === 'zstd' ? zstdDecompressSync(raw) : raw;
    const text = raw.toString('utf8');
    try {
        return text ? JSON.parse(text) : undefined;
    } catch {
        return text;
    }
}

export async function startScriptedModel(script: Turn[]): Promise<ScriptedModel> {
    const recording = new Recording();
    const feed = new Feed<RecordedRequest>();
    const strays: StrayRequest[] = [];
    const server: Server = createServer((req, res) => {
        void (async () => {
            const body = await readBody(req);
            const path = (req.url ?? '/').split('?')[0]!;
            const dialect = req.method === 'POST' ? DIALECTS.find(candidate => candidate.matches(path)) : undefined;
            if (dialect === undefined) {
                strays.push({ method: req.method ?? '?', url: req.url ?? '/' });
                json(res, { error: { message: `scripted model: nothing at ${req.method} ${path}` } }, 404);
                return;
            }
            if (dialect.answerAside?.(path, body, res)) {
                return;
            }
            const view = dialect.read(body);
            const reply = decideReply(script, view);
            const recorded = { dialect: dialect.name, path, body, view, reply };
            recording.requests.push(recorded);
            feed.push(recorded);
            dialect.answer(req.url ?? path, body, reply, res);
        })().catch((error: Error) => {
            if (!res.headersSent) {
                json(res, { error: { message: `scripted model failed: ${error.message}` } }, 500);
            } else {
                res.end();
            }
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        recording,
        feed,
        strays,
        close: () =>
            new Promise(resolve => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}
