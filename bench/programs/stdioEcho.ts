// Floor for the stdio figures: newline-delimited JSON in, one fixed result per request out (same id).
// A task-augmented call (params with "task") gets instead what such a call puts on the 2025-11-25
// wire at the least: a CreateTaskResult and the status notification of its completion, the same
// fields and sizes as ours, with a fresh task id and no task behind it. That is the floor of task
// creation over stdio: what the wire alone costs, in the server and in the client that reads it.
// Usage: node stdioEcho.js
import { randomBytes } from 'node:crypto';

const RESULT = JSON.stringify({ content: [{ type: 'text', text: 'Hello, World!' }] });

/** The ISO time of the last millisecond asked for (a server stamps many tasks in the same one). */
let stampMs = NaN;
let stamp = '';
function now(): string {
    const ms = Date.now();
    if (ms !== stampMs) {
        stampMs = ms;
        stamp = new Date(ms).toISOString();
    }
    return stamp;
}

function taskFrames(idJson: string, ttl: number): string {
    const at = now();
    const taskId = randomBytes(16).toString('base64url');
    const times = `"createdAt":"${at}","lastUpdatedAt":"${at}","ttl":${ttl},"pollInterval":1000`;
    return (
        `{"jsonrpc":"2.0","id":${idJson},"result":{"task":{"taskId":"${taskId}","status":"working",${times}}}}\n` +
        `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"${taskId}","status":"completed",${times}}}\n`
    );
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') {
            const message = JSON.parse(line) as { id?: unknown; params?: { task?: { ttl?: unknown } } };
            if (message.id !== undefined) {
                const idJson = JSON.stringify(message.id);
                const task = message.params?.task;
                const ttl = typeof task?.ttl === 'number' ? task.ttl : 60_000;
                process.stdout.write(task ? taskFrames(idJson, ttl) : `{"jsonrpc":"2.0","id":${idJson},"result":${RESULT}}\n`);
            }
        }
        newline = buffered.indexOf('\n');
    }
});
process.stdin.once('end', () => process.exit(0));
