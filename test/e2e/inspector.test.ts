import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SERVER_JS, startHttpServer, type HttpServer } from '../support/helpers.js';
import { runNodeToEnd } from '../support/runToEnd.js';
import { inMemory } from '../support/serverState.js';

// The official MCP Inspector (a pinned devDependency) in CLI mode, as an independent client.
const PACKAGE_JSON = resolve(__dirname, '../../node_modules/@modelcontextprotocol/inspector/package.json');
const INSPECTOR = join(dirname(PACKAGE_JSON), (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']!);
const TOKEN = 'inspector-secret';

interface Outcome {
    code: number | null;
    /** stdout parsed: `--format json` prints one object, `{result}` on success. */
    json: { result?: Record<string, unknown> };
    stderr: string;
}

let home: string;

/** `mcp-inspector --cli ARGS --format json`, with a throw-away HOME for the Inspector's own files. */
async function inspector(args: string[]): Promise<Outcome> {
    const { code, stdout, stderr } = await runNodeToEnd([INSPECTOR, '--cli', ...args, '--format', 'json'], { env: { HOME: home, USERPROFILE: home }, limitMs: 30_000 });
    let json: Outcome['json'] = {};
    try {
        json = stdout.trim() ? (JSON.parse(stdout) as Outcome['json']) : {};
    } catch {
        assert.fail(`the Inspector printed no JSON (exit ${String(code)}):\n${stdout}\n${stderr}`);
    }
    return { code, json, stderr };
}

function text(outcome: Outcome): string {
    return ((outcome.json.result?.content ?? []) as { text?: string }[]).map(part => part.text ?? '').join('');
}

function toolSupport(outcome: Outcome): Record<string, string> {
    const tools = (outcome.json.result?.tools ?? []) as { name: string; execution?: { taskSupport?: string } }[];
    return Object.fromEntries(tools.map(tool => [tool.name, tool.execution?.taskSupport ?? 'forbidden']));
}

const STDIO = ['node', SERVER_JS, '--stdio', ...inMemory()];

describe('MCP Inspector CLI', () => {
    let server: HttpServer;

    before(async () => {
        home = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));
        server = await startHttpServer(['--token', TOKEN]);
    });
    after(async () => {
        await server?.stop();
        rmSync(home, { recursive: true, force: true });
    });

    it('lists the tools over stdio, with their task support', async () => {
        const outcome = await inspector([...STDIO, '--method', 'tools/list']);
        assert.equal(outcome.code, 0, outcome.stderr);
        const support = toolSupport(outcome);
        assert.equal(support.greet, 'forbidden');
        assert.equal(support.slow_compute, 'optional');
        for (const name of ['failing_job', 'confirm_delete', 'write_haiku', 'external_job']) {
            assert.equal(support[name], 'required', name);
        }
    });

    it('calls greet over stdio', async () => {
        const outcome = await inspector([...STDIO, '--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'name=Stdio']);
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.equal(text(outcome), 'Hello, Stdio!');
    });

    it('lists the tools over Streamable HTTP with the bearer token', async () => {
        const outcome = await inspector([server.url, '--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`, '--method', 'tools/list']);
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.equal(toolSupport(outcome).slow_compute, 'optional');
    });

    it('calls greet over Streamable HTTP', async () => {
        const outcome = await inspector([
            server.url,
            '--transport',
            'http',
            '--header',
            `Authorization: Bearer ${TOKEN}`,
            '--method',
            'tools/call',
            '--tool-name',
            'greet',
            '--tool-arg',
            'name=Inspector',
        ]);
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.equal(text(outcome), 'Hello, Inspector!');
    });

    it('is refused over HTTP without the token', async () => {
        const outcome = await inspector([server.url, '--transport', 'http', '--stored-auth-only', '--method', 'tools/list']);
        assert.notEqual(outcome.code, 0);
        assert.equal(outcome.json.result, undefined);
        assert.match(outcome.stderr, /Unauthorized|auth_required/);
    });

    it('runs a required-task tool as a task (external_job) and gets the result with related-task _meta', async () => {
        const outcome = await inspector([...STDIO, '--method', 'tools/call', '--tool-name', 'external_job', '--tool-arg', 'job_id=insp-1']);
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.equal(text(outcome), 'External job insp-1 completed');
        const related = (outcome.json.result?._meta as Record<string, { taskId?: string }> | undefined)?.['io.modelcontextprotocol/related-task'];
        assert.equal(typeof related?.taskId, 'string');
    });

    it('reports a failed task as an error with its status message (failing_job)', async () => {
        const outcome = await inspector([...STDIO, '--method', 'tools/call', '--tool-name', 'failing_job']);
        assert.equal(outcome.code, 1);
        assert.match(outcome.stderr, /Job failed: the simulated worker crashed/);
    });
});
