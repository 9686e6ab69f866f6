/**
 * What a newcomer sees when the server cannot start: one line that names the file by its absolute
 * path (and the folder a relative one was looked for from), a busy port with what to do, and the
 * exit code that says whose it is to fix: 2 for a configuration (flags, the commands file, the
 * wrap config), 1 for what failed around a good one. And --help's examples each parse.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { EXAMPLES, parseCli, usage } from '../../server/src/options.js';
import { SERVER_JS, startHttpServer } from '../support/helpers.js';
import { runCli } from '../support/rawHelpers.js';

/** Runs the server in `cwd` with stdin closed; resolves with its exit code and stderr. */
async function runIn(cwd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
    const proc = spawn(process.execPath, [SERVER_JS, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MCP_TASKS_TOKEN: '', MCP_TASKS_OWNER_TOKEN: '' } });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(proc, 'close')) as [number | null];
    return { code, stderr };
}

describe('start-up errors a newcomer meets', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'start-errors-')));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('a relative --commands file that is not there: its absolute path, the folder it was looked for from, exit 2', async () => {
        const run = await runIn(dir, ['--stdio', '--commands', 'commands.json']);
        assert.equal(run.code, 2);
        assert.match(run.stderr, new RegExp(`the commands file ${join(dir, 'commands.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(commands\\.json, from the folder the server started in\\) does not exist`));
    });

    it('a --commands path that is a folder says so', async () => {
        const run = await runIn(dir, ['--stdio', '--commands', dir]);
        assert.equal(run.code, 2);
        assert.match(run.stderr, /the commands file \S+ is a folder; give the file in it/);
    });

    it('a --wrap-config file that is not there: its absolute path, exit 2 as for any flag', async () => {
        const run = await runIn(dir, ['--stdio', '--wrap-config', 'mcp.json']);
        assert.equal(run.code, 2);
        assert.match(run.stderr, /--wrap-config: the file \/\S+\/mcp\.json \(mcp\.json, from the folder the server started in\) does not exist/);
    });

    it('a port in use: what to do, exit 1', async () => {
        const first = await startHttpServer();
        try {
            const run = await runCli(['--http', '--port', String(first.port)]);
            assert.equal(run.code, 1);
            assert.match(run.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${first.port}: the port is already in use \\(another MCP Tasks server, or another program\\); stop it, or start this one with --port N \\(--port 0 picks a free port\\)`));
        } finally {
            await first.stop();
        }
    });

    it('--help shows examples, each a command line the parser takes', () => {
        const config = join(dir, 'mcp.json');
        writeFileSync(config, JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } }));
        const text = usage();
        assert.match(text, /^Examples:$/m);
        for (const [line, what] of EXAMPLES) {
            assert.ok(text.includes(`  ${line}\n      ${what}`), line);
            // As the shell would pass it: quotes gone, $TOKEN a token, the mcp.json a real one.
            const args = line
                .split(' ')
                .slice(1)
                .map(arg => arg.replace(/^"(.*)"$/, '$1'))
                .map((arg, i, all) => (arg === '$TOKEN' ? 'a-token' : all[i - 1] === '--wrap-config' ? config : arg));
            assert.doesNotThrow(() => parseCli(args, {}), line);
        }
        assert.match(text, /MCP_TASKS_WRAP as a JSON array/);
        assert.match(text, /\(env MCP_TASKS_WRAP, a JSON array\)/);
    });
});

describe('on a Node.js too old for the server', () => {
    for (const [version, code] of [
        ['18.19.0', 1],
        ['20.2.0', 1],
    ] as const) {
        it(`Node.js ${version}: one line that says what to do, exit ${code}, nothing on stdout`, async () => {
            // The running Node made to report an older version before the server's first module runs.
            const proc = spawn(process.execPath, ['--input-type=module', '-e', `Object.defineProperty(process.versions, 'node', { value: '${version}' }); await import(${JSON.stringify(pathToFileURL(SERVER_JS).href)});`], {
                stdio: ['ignore', 'pipe', 'pipe'],
            });
            let stdout = '';
            let stderr = '';
            proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
            proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
            const [exit] = (await once(proc, 'close')) as [number | null];
            assert.equal(exit, code);
            assert.equal(stdout, '');
            assert.equal(stderr, `mcp-tasks needs Node.js 20.3 or later, and this is Node.js ${version}: install a current Node.js (22 LTS: https://nodejs.org) and start it again.\n`);
        });
    }
});
