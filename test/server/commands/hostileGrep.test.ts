/**
 * read_output's grep with patterns that backtrack catastrophically, through a real server over
 * HTTP: each answer says the search was stopped and where, and another client's ping is answered
 * while the search runs (before it answers), because the pattern never runs on the main thread.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, secret, startHttpServer, textOf, type Connected, type HttpServer } from '../../support/helpers.js';

const node = process.execPath;
/** The two lines that froze the server: 29 characters for (a+)+$, an ordinary 52-character line for ^(\w+\s?)*$. */
const HOSTILE_LINES = ['aaaaaaaaaaaaaaaaaaaaaaaaaaaa!', 'build step 12 finished with warnings in module parser!'];
const PATTERNS = ['(a+)+$', '^(\\w+\\s?)*$'];

describe('read_output: a grep pattern that backtracks catastrophically', () => {
    let server: HttpServer;
    let dir: string;
    const [alice, bob] = [secret(), secret()];

    before(async () => {
        dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-hostile-')));
        const script = join(dir, 'print.js');
        writeFileSync(script, `console.log(${JSON.stringify(['first line', ...HOSTILE_LINES, 'last line'].join('\n'))});\n`);
        writeFileSync(join(dir, 'commands.json'), JSON.stringify({ tools: [{ name: 'print', description: 'Prints the lines.', command: [node, script] }] }));
        server = await startHttpServer(['--token', alice, '--token', bob, '--commands', join(dir, 'commands.json'), '--commands-log-dir', join(dir, 'logs')]);
    });
    after(async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
    });

    for (const pattern of PATTERNS) {
        it(`${pattern}: the search stops with words a model can act on, and another client's ping is answered meanwhile`, async () => {
            const [a, b] = (await Promise.all([alice, bob].map(token => connect('http', server, { token })))) as [Connected, Connected];
            try {
                const call = (c: Connected, name: string, args: Record<string, unknown>) => c.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema) as Promise<CallToolResult>;
                const taskId = ((await call(a, 'start_print', {})).structuredContent as { task_id: string }).task_id;
                const ended = await call(a, 'get_task', { task_id: taskId, wait_seconds: 20 });
                assert.equal((ended.structuredContent as { status: string }).status, 'completed');

                const order: string[] = [];
                const grep = call(a, 'read_output', { task_id: taskId, grep: pattern }).then(result => (order.push('grep'), result));
                // Bob's pings go on while Alice's search runs: the first is answered before her answer comes.
                const ping = b.client.ping().then(() => order.push('ping'));
                const [result] = await Promise.all([grep, ping]);
                assert.deepEqual(order, ['ping', 'grep'], "the other client's ping was answered first");
                assert.equal(result.isError, true);
                assert.match(textOf(result), /^grep stopped after 1 s on line [23]: the pattern \/.+\/ backtracks too much on that text .*Search again with a simpler pattern/);
                // The server is whole afterwards: a plain search of the same log answers.
                const plain = await call(a, 'read_output', { task_id: taskId, grep: 'module parser' });
                assert.match(textOf(plain), /1 line\(s\) match \/module parser\/\.\n3: build step 12/);
            } finally {
                await Promise.all([a.close(), b.close()]);
            }
        });
    }
});
