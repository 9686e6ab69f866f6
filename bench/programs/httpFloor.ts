// Floor for the HTTP figures: bare node:http answering every request with one fixed JSON body.
// Usage: node httpFloor.js --port 0   (prints {"url"} once listening)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const BODY = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Hello, World!' }] } }));
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) };

const server = createServer((req, res) => {
    // Read the request through, as a real endpoint must, then answer.
    req.resume();
    req.on('end', () => res.writeHead(200, HEADERS).end(BODY));
});
server.keepAliveTimeout = 65_000;
const at = process.argv.indexOf('--port');
server.listen(at >= 0 ? Number(process.argv[at + 1]) : 0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` }) + '\n');
});
process.on('SIGTERM', () => process.exit(0));
