/**
 * The stdio owner channel against another local user: the announce file is written under an
 * unpredictable name without following links, only into a private directory, and removed on every
 * exit the process lives through; the owner endpoint proves it holds the owner token (an HMAC of
 * the caller's challenge and its port) before anyone sends that token to it.
 * The extension's side (stale files, dead pids, a squatter on a freed port) is in test/extension/owner/ownerChannel.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OWNER_CHALLENGE_HEADER, OWNER_PROOF_HEADER, ownerProof } from '../../../server/src/ownerProof.js';
import { httpServerPerSuite, secret, SERVER_JS, startHttpServer } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { exitWithin } from '../../support/rawHelpers.js';
import { exchange } from '../../support/rawHttp.js';

const CHALLENGE = 'Q2hhbGxlbmdlLW9mLWEtdGVzdC0wMTIzNDU2Nzg5';

function startStdio(file: string, ownerToken: string, nodeArgs: string[] = []) {
    const proc = spawn(process.execPath, [...nodeArgs, SERVER_JS, '--stdio'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, MCP_TASKS_TOKEN: '', MCP_TASKS_OWNER_TOKEN: ownerToken, MCP_TASKS_OWNER_ANNOUNCE: file },
    });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    proc.stdout.resume();
    return { proc, stderr: () => stderr };
}

const isFile = (path: string) => {
    try {
        return lstatSync(path).isFile();
    } catch {
        return false;
    }
};

describe('the owner-announce file', () => {
    let dir: string;
    let elsewhere: string;
    before(() => {
        elsewhere = mkdtempSync(join(tmpdir(), 'mcp-tasks-victim-'));
    });
    after(() => rmSync(elsewhere, { recursive: true, force: true }));

    it('follows no symlink planted at the announce path or at a guessable temp name', async () => {
        dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-owner-'));
        const file = join(dir, 'owner.json');
        const victims = [join(elsewhere, 'victim-at-path'), join(elsewhere, 'victim-at-temp')];
        for (const victim of victims) {
            writeFileSync(victim, 'precious');
        }
        symlinkSync(victims[0]!, file);
        const { proc } = startStdio(file, secret());
        // The name the server once used for its temp file: pid-based, so known as soon as it starts.
        symlinkSync(victims[1]!, `${file}.${proc.pid}.tmp`);
        try {
            await waitUntil(() => isFile(file), 'the announce file to replace the planted link');
            for (const victim of victims) {
                assert.equal(readFileSync(victim, 'utf8'), 'precious', `${victim} was overwritten through a link`);
            }
            const announced = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
            assert.equal(announced.pid, proc.pid);
            assert.deepEqual(readdirSync(dir).sort(), ['owner.json', `owner.json.${proc.pid}.tmp`], 'no temp file is left behind');
        } finally {
            proc.kill('SIGKILL');
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it('refuses a directory other users can write to, and keeps serving stdio', async () => {
        dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-owner-'));
        chmodSync(dir, 0o777);
        const file = join(dir, 'owner.json');
        const { proc, stderr } = startStdio(file, secret());
        try {
            await waitUntil(() => stderr().includes('[owner]'), 'the owner endpoint to be refused');
            assert.match(stderr(), /\[owner\] cannot open the owner endpoint: .*private/);
            assert.equal(existsSync(file), false);
            assert.equal(proc.exitCode, null, 'the stdio server still runs');
        } finally {
            proc.kill('SIGKILL');
            rmSync(dir, { recursive: true, force: true });
        }
    });

    for (const [how, stop, nodeArgs, code] of [
        ['SIGTERM', (p: ReturnType<typeof spawn>) => p.kill('SIGTERM'), [], 0],
        ['SIGINT', (p: ReturnType<typeof spawn>) => p.kill('SIGINT'), [], 0],
        ['the end of stdin', (p: ReturnType<typeof spawn>) => p.stdin!.end(), [], 0],
        // A throw nothing catches: a signal handler preloaded only for this test throws.
        ['an uncaught error', (p: ReturnType<typeof spawn>) => p.kill('SIGUSR2'), ['--import', 'data:text/javascript,process.on("SIGUSR2",()=>{throw new Error("boom")})'], 1],
    ] as const) {
        it(`removes the announce file on ${how}`, async () => {
            dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-owner-'));
            const file = join(dir, 'owner.json');
            const { proc } = startStdio(file, secret(), [...nodeArgs]);
            try {
                await waitUntil(() => existsSync(file), 'the announce file');
                const exited = exitWithin(proc, 10_000);
                stop(proc);
                assert.equal((await exited).code, code);
                assert.deepEqual(readdirSync(dir), [], 'the announce file outlived its server');
            } finally {
                proc.kill('SIGKILL');
                rmSync(dir, { recursive: true, force: true });
            }
        });
    }
});

describe('the owner proof', () => {
    const ownerToken = secret();
    const clientToken = secret();
    const server = httpServerPerSuite([], { MCP_TASKS_TOKEN: clientToken, MCP_TASKS_OWNER_TOKEN: ownerToken });

    const challenge = (url: string, value: string, headers: Record<string, string> = {}) => exchange(url, { method: 'GET', headers: { [OWNER_CHALLENGE_HEADER]: value, ...headers } });

    it("answers a challenge, unauthenticated, with an HMAC of it and the port under the owner token, and nothing else", async () => {
        const res = await challenge(server.url, CHALLENGE);
        assert.equal(res.status, 204);
        assert.equal(res.header(OWNER_PROOF_HEADER), ownerProof(ownerToken, server.port, CHALLENGE));
        assert.equal(res.body, '');
        assert.notEqual(res.header(OWNER_PROOF_HEADER), ownerProof(ownerToken, server.port + 1, CHALLENGE), 'the proof names the port');
        assert.notEqual(res.header(OWNER_PROOF_HEADER), ownerProof(clientToken, server.port, CHALLENGE), 'the client token proves nothing');
        const other = await challenge(server.url, `${CHALLENGE}x`);
        assert.equal(other.header(OWNER_PROOF_HEADER), ownerProof(ownerToken, server.port, `${CHALLENGE}x`));
        assert.ok(!JSON.stringify(res.headers).includes(ownerToken.slice(0, 12)));
    });

    it('ignores a malformed challenge (a plain 401) and still checks Host first', async () => {
        for (const bad of ['short', 'not base64url!not base64url!not base64url', 'A'.repeat(200)]) {
            const res = await challenge(server.url, bad);
            assert.equal(res.status, 401, bad);
            assert.equal(res.header(OWNER_PROOF_HEADER), undefined);
        }
        const foreign = await challenge(server.url, CHALLENGE, { host: `evil.example:${server.port}` });
        assert.equal(foreign.status, 403);
        assert.equal(foreign.header(OWNER_PROOF_HEADER), undefined);
    });

    it('gives no proof when the server has no owner token', async () => {
        const bare = await startHttpServer([], { MCP_TASKS_TOKEN: clientToken, MCP_TASKS_OWNER_TOKEN: '' });
        try {
            const res = await challenge(bare.url, CHALLENGE);
            assert.equal(res.status, 401);
            assert.equal(res.header(OWNER_PROOF_HEADER), undefined);
        } finally {
            await bare.stop();
        }
    });

    it("is answered on the stdio server's owner endpoint", async () => {
        dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-owner-'));
        const file = join(dir, 'owner.json');
        const { proc } = startStdio(file, ownerToken);
        try {
            await waitUntil(() => existsSync(file), 'the announce file');
            const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
            const res = await challenge(url, CHALLENGE);
            assert.equal(res.status, 204);
            assert.equal(res.header(OWNER_PROOF_HEADER), ownerProof(ownerToken, Number(new URL(url).port), CHALLENGE));
        } finally {
            proc.kill('SIGKILL');
            rmSync(dir, { recursive: true, force: true });
        }
    });
    let dir: string;
});
