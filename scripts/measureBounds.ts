/**
 * Measures the figures docs/RELIABILITY.md reports for issue 18, against a real dist/server.js:
 *   lockout   N zero-byte connections (the cap's worth), then how long a client's initialize takes
 *   flood     the same while the peers reconnect as fast as they are cut
 *   stalled   RSS while a GET stream is never read and tasks send progress with the largest token
 *   retained  RSS after a client fills its retained-task budget with finished tasks, and after DELETE
 * Usage: npx tsx scripts/measureBounds.ts lockout|flood|stalled|retained [server flags…]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const SERVER = resolve(__dirname, '../dist/server.js');
const TOKEN = 'measure-token-0123456789abcdef';
const mib = (pid: number) => (Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024).toFixed(1);

async function start(extra: string[]) {
    const proc = spawn(process.execPath, [SERVER, '--http', '--port', '0', '--token', TOKEN, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: proc.stdout! }), 'line')) as [string];
    return { proc, url: (JSON.parse(line) as { url: string }).url };
}

function post(url: string, body: object, session?: string, agent?: Agent): Promise<{ status: number; session?: string; text: string }> {
    return new Promise((done, fail) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };
        if (session) {
            headers['mcp-session-id'] = session;
        }
        const req = request(url, { method: 'POST', headers, agent: agent ?? false }, res => {
            let text = '';
            res.on('data', c => (text += c));
            res.on('end', () => done({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, text }));
        });
        req.on('error', fail);
        req.end(JSON.stringify(body));
    });
}

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'm', version: '1' } } };

function peer(port: number, sockets: Set<Socket>, again: boolean): void {
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
        sockets.delete(socket);
        if (again) {
            peer(port, sockets, again);
        }
    });
}

async function lockout(flood: boolean, extra: string[]): Promise<void> {
    const cap = Number(extra[extra.indexOf('--max-connections') + 1]) || 512;
    const { proc, url } = await start(extra);
    const sockets = new Set<Socket>();
    for (let i = 0; i < cap; i++) {
        peer(Number(new URL(url).port), sockets, flood);
    }
    await new Promise(r => setTimeout(r, 500));
    const started = performance.now();
    let tries = 0;
    for (;;) {
        tries++;
        const reply = await post(url, INIT).catch(() => undefined);
        if (reply?.status === 200) {
            break;
        }
        await new Promise(r => setTimeout(r, 50));
    }
    console.log(`${flood ? 'flood' : 'lockout'}: ${cap} silent peers; a client's initialize succeeded after ${(performance.now() - started).toFixed(0)} ms (${tries} attempt(s)); server RSS ${mib(proc.pid!)} MiB`);
    const cutStart = performance.now();
    while (!flood && sockets.size > 0 && performance.now() - cutStart < 20_000) {
        await new Promise(r => setTimeout(r, 50));
    }
    if (!flood) {
        console.log(`every silent peer cut ${(performance.now() - cutStart + 500).toFixed(0)} ms after opening (${sockets.size} left)`);
    }
    for (const s of sockets) {
        s.removeAllListeners('close');
        s.destroy();
    }
    proc.kill();
}

async function stalled(extra: string[]): Promise<void> {
    const { proc, url } = await start(extra);
    const agent = new Agent({ keepAlive: true });
    const { session } = await post(url, INIT, undefined, agent);
    // A GET stream whose reader never reads.
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.write(`GET /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\n\r\n`);
    socket.pause();
    const token = 'p'.repeat(256);
    console.log(`stalled: RSS before ${mib(proc.pid!)} MiB`);
    for (let i = 0; i < 100; i++) {
        await post(url, { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 15, label: 'x'.repeat(200) }, task: {}, _meta: { progressToken: `${token.slice(0, 250)}${i}` } } }, session, agent);
    }
    for (let s = 1; s <= 15; s++) {
        await new Promise(r => setTimeout(r, 1000));
        if (s % 5 === 0) {
            console.log(`stalled: after ${s} s, RSS ${mib(proc.pid!)} MiB, stream ${socket.destroyed || socket.readableEnded ? 'cut' : 'open'}`);
        }
    }
    socket.destroy();
    agent.destroy();
    proc.kill();
}

async function retained(extra: string[]): Promise<void> {
    const { proc, url } = await start(extra);
    const agent = new Agent({ keepAlive: true });
    console.log(`retained: RSS before ${mib(proc.pid!)} MiB`);
    for (let round = 0; round < 3; round++) {
        const { session } = await post(url, INIT, undefined, agent);
        let created = 0;
        let refusal = '';
        for (let i = 0; i < 100_000; i++) {
            const reply = await post(url, { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0, label: 'y'.repeat(200) }, task: {}, _meta: { progressToken: 'q'.repeat(256) } } }, session, agent);
            if (reply.text.includes('"error"')) {
                refusal = (JSON.parse(reply.text) as { error: { message: string } }).error.message;
                break;
            }
            created++;
        }
        console.log(`retained: session ${round + 1}: ${created} finished tasks, then "${refusal}"; RSS ${mib(proc.pid!)} MiB`);
        await new Promise<void>((done, fail) => {
            const req = request(url, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session! }, agent }, res => {
                res.resume();
                res.on('end', done);
            });
            req.on('error', fail);
            req.end();
        });
        await new Promise(r => setTimeout(r, 1000));
        console.log(`retained: after DELETE of session ${round + 1}, RSS ${mib(proc.pid!)} MiB`);
    }
    agent.destroy();
    proc.kill();
}

const [what = 'lockout', ...extra] = process.argv.slice(2);
const run = what === 'lockout' || what === 'flood' ? lockout(what === 'flood', extra) : what === 'stalled' ? stalled(extra) : retained(extra);
run.then(
    () => process.exit(0),
    err => {
        console.error(err);
        process.exit(1);
    },
);
