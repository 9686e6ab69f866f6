/**
 * docs/LIBRARY.md's samples (and the README's), run against the packed package: each ```js title="x.mjs"``` sample is
 * written into the installed app and run with `node` under a real SDK client that checks what the
 * guide says it does. The ```ts title="x.ts"``` samples are type-checked by packedServer.test.ts
 * (TypeScript 7, the guide's tsconfig). A sample without a check fails the suite.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CallToolResultSchema,
    CreateMessageRequestSchema,
    CreateTaskResultSchema,
    ElicitRequestSchema,
    McpError,
    ProgressNotificationSchema,
    type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { secret, textOf } from './helpers.js';
import { ROOT } from './packedPackage.js';

export const GUIDE = join(ROOT, 'docs/LIBRARY.md');
/** A sample in the README (it has none today) would run here too. */
export const README = join(ROOT, 'README.md');

export interface Sample {
    lang: 'js' | 'ts';
    title: string;
    code: string;
}

/** The guide's and the README's samples, in that order. */
export function docSamples(): Sample[] {
    return [...samplesOf(readFileSync(GUIDE, 'utf8')), ...samplesOf(readFileSync(README, 'utf8'))];
}

/** Every fenced js/ts block of the guide; a block without a title is returned with an empty one, so the check below names it. */
export function samplesOf(markdown: string): Sample[] {
    return [...markdown.matchAll(/^```(js|ts)\b([^\n]*)\n([\s\S]*?)^```$/gm)].map(([, lang, info, code]) => ({
        lang: lang as 'js' | 'ts',
        title: /title="([^"]+)"/.exec(info!)?.[1] ?? '',
        code: code!,
    }));
}

// The SDK's Task schema drops _meta; this keeps the parent id the server sends.
const ChildList = z.object({ tasks: z.array(z.looseObject({ status: z.string(), _meta: z.record(z.string(), z.unknown()).optional() })) });

type Check = (app: string, file: string) => Promise<void>;

async function stdioClient(app: string, file: string, capabilities: ClientCapabilities = {}): Promise<Client> {
    const client = new Client({ name: 'library-guide', version: '1.0.0' }, { capabilities });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [file], cwd: app, stderr: 'pipe' }));
    return client;
}

async function withStdio(app: string, file: string, capabilities: ClientCapabilities, body: (client: Client) => Promise<void>): Promise<void> {
    const client = await stdioClient(app, file, capabilities);
    try {
        await body(client);
    } finally {
        await client.close();
    }
}

async function startTask(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<string> {
    const { task } = await client.request({ method: 'tools/call', params: { name, arguments: args, task: {}, ...(meta ? { _meta: meta } : {}) } }, CreateTaskResultSchema);
    return task.taskId;
}

function taskResult(client: Client, taskId: string) {
    return client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
}

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
    const err = await promise.then(
        () => assert.fail('expected a JSON-RPC error'),
        (e: unknown) => e,
    );
    assert.ok(err instanceof McpError, String(err));
    return err;
}

/** What each JavaScript sample promises, checked with a real client. */
const CHECKS: Record<string, Check> = {
    'report.mjs': (app, file) =>
        withStdio(app, file, {}, async client => {
            assert.deepEqual(client.getServerVersion(), { name: 'acme-reports', title: 'ACME Reports', version: '1.0.0' });
            assert.equal(client.getInstructions(), 'build_report takes a while: call it as a task.');
            const [tool] = (await client.listTools()).tools;
            assert.equal(tool?.name, 'build_report');
            assert.deepEqual(tool.execution, { taskSupport: 'optional' });
            const progress: string[] = [];
            client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
                progress.push(`${params.progress}/${params.total} ${params.message}`);
            });
            const taskId = await startTask(client, 'build_report', { quarter: '2026-Q1', sections: 2 }, { progressToken: 'report' });
            assert.equal(textOf(await taskResult(client, taskId)), 'Report for 2026-Q1: 2 sections.');
            assert.deepEqual(progress, ['1/2 section 1 of 2', '2/2 section 2 of 2']);
            assert.equal(textOf(await client.callTool({ name: 'build_report', arguments: { quarter: 'Q2', sections: 1 } })), 'Report for Q2: 1 sections.');
        }),

    'task-support.mjs': (app, file) =>
        withStdio(app, file, {}, async client => {
            const tools = Object.fromEntries((await client.listTools()).tools.map(tool => [tool.name, tool]));
            assert.deepEqual(Object.keys(tools), ['lookup_user', 'transcode']);
            assert.equal(tools.lookup_user!.execution, undefined);
            assert.equal(tools.lookup_user!.annotations?.readOnlyHint, true);
            assert.deepEqual(tools.transcode!.execution, { taskSupport: 'required' });
            assert.deepEqual(Object.keys(tools.transcode!.outputSchema?.properties ?? {}), ['output', 'seconds']);
            const plain = (name: string, args: Record<string, unknown>) => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
            assert.equal((await rpcError(plain('transcode', { file: 'a.mov' }))).code, -32601);
            assert.equal((await rpcError(startTask(client, 'lookup_user', { id: 'u1' }))).code, -32601);
            // Arguments that do not fit: a tool error the model can correct, naming the field and the shape.
            const invalid = await plain('lookup_user', { id: 'nobody' });
            assert.equal(invalid.isError, true);
            assert.match(textOf(invalid), /^Invalid arguments for tool lookup_user: id: .*lookup_user takes \{id: string \(required\)\}/);
            assert.equal(textOf(await plain('lookup_user', { id: 'u7' })), 'User u7 is Ada.');
            const result = await taskResult(client, await startTask(client, 'transcode', { file: 'clip.mov' }));
            assert.deepEqual(result.structuredContent, { output: 'clip.mp4', seconds: 0.2 });
        }),

    'ask.mjs': async (app, file) => {
        const client = await stdioClient(app, file, { elicitation: { form: {} }, sampling: {} });
        try {
            let publish = 'publish';
            const seen: string[] = [];
            client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Why tasks matter.' } }));
            client.setRequestHandler(ElicitRequestSchema, async request => {
                const related = request.params._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string };
                seen.push(`${request.params.message} [${(await client.experimental.tasks.getTask(related.taskId)).status}]`);
                return { action: 'accept', content: { publish } };
            });
            assert.equal(textOf(await taskResult(client, await startTask(client, 'publish_post', { title: 'Tasks' }))), 'Published "Tasks": Why tasks matter.');
            publish = 'wait';
            assert.equal(textOf(await taskResult(client, await startTask(client, 'publish_post', { title: 'Draft' }))), 'Not published: Draft');
            assert.deepEqual(seen, ['Publish "Tasks" with the summary "Why tasks matter."? [input_required]', 'Publish "Draft" with the summary "Why tasks matter."? [input_required]']);
        } finally {
            await client.close();
        }
    },

    'pipeline.mjs': (app, file) =>
        withStdio(app, file, {}, async client => {
            assert.deepEqual((await client.listTools()).tools.map(tool => tool.name), ['pipeline'], 'the step is hidden');
            const taskId = await startTask(client, 'pipeline', {});
            assert.equal(textOf(await taskResult(client, taskId)), 'lint ok, test ok, package ok');
            const children = await client.request({ method: 'tasks/list', params: { _meta: { 'dev.mcp-tasks/parent-task-id': taskId } } }, ChildList);
            assert.equal(children.tasks.length, 3);
            for (const child of children.tasks) {
                assert.equal(child._meta?.['dev.mcp-tasks/parent-task-id'], taskId);
                assert.equal(child.status, 'completed');
            }
            const failing = await startTask(client, 'pipeline', { failAt: 'test' });
            const result = await taskResult(client, failing);
            assert.equal(result.isError, true);
            assert.match(textOf(result), /^Pipeline stopped: pipeline_step failed \(test broke\)$/);
            const task = await client.experimental.tasks.getTask(failing);
            assert.equal(task.status, 'failed');
            assert.equal(task.statusMessage, textOf(result));
        }),

    'serve-http.mjs': async (app, file) => {
        const refused = spawn(process.execPath, [file], { cwd: app, env: { ...process.env, MCP_TASKS_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
        let refusal = '';
        refused.stderr.on('data', chunk => (refusal += String(chunk)));
        assert.equal((await once(refused, 'exit'))[0], 1);
        assert.match(refusal, /Set MCP_TASKS_TOKEN/);

        const token = secret();
        const proc = spawn(process.execPath, [file], { cwd: app, env: { ...process.env, MCP_TASKS_TOKEN: token, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
        const exited = once(proc, 'exit');
        try {
            const [line] = (await once(createInterface({ input: proc.stdout }), 'line')) as [string];
            const url = new URL((JSON.parse(line) as { url: string }).url);
            assert.equal(url.hostname, '127.0.0.1');
            assert.notEqual(url.port, '8080');
            assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401);
            const client = new Client({ name: 'library-guide', version: '1.0.0' }, { capabilities: {} });
            await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
            const cancelled = await startTask(client, 'wait_for', { seconds: 3600 });
            await client.experimental.tasks.cancelTask(cancelled);
            assert.equal((await client.experimental.tasks.getTask(cancelled)).status, 'cancelled');
            const running = await startTask(client, 'wait_for', { seconds: 3600 });
            // A waiting tasks/result gets the task's end before the streams close. The getTask sent
            // after it comes back once the server has read both, so the wait is in place.
            const outcome = taskResult(client, running);
            assert.equal((await client.experimental.tasks.getTask(running)).status, 'working');
            proc.kill('SIGTERM');
            const result = await outcome;
            assert.equal(result.isError, true);
            assert.match(textOf(result), /Server shutting down/);
            assert.deepEqual(await exited, [0, null]);
            await client.close();
        } finally {
            if (proc.exitCode === null && proc.signalCode === null) {
                proc.kill('SIGKILL');
            }
        }
    },

    // In the shared app, which has no MCP SDK: the gateway carries its own client.
    'wrap.mjs': async (app, file) => {
        const refused = spawn(process.execPath, [file], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
        let refusal = '';
        refused.stderr.on('data', chunk => (refusal += String(chunk)));
        assert.equal((await once(refused, 'exit'))[0], 1);
        assert.match(refusal, /Give the MCP server to wrap/);

        // It wraps the package's own command line, as it would any stdio server.
        const cli = join(app, 'node_modules/@mcp-tasks/server/dist/cli.js');
        const client = new Client({ name: 'library-guide', version: '1.0.0' }, { capabilities: {} });
        // This process's environment (its temporary state folder, serverState.ts), not the SDK's few default
        // variables, and a memory store: the wrapped server must not write into the user's own data folder.
        const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [file, process.execPath, cli, '--stdio', '--store', 'memory'], cwd: app, env, stderr: 'pipe' }));
        try {
            assert.equal(client.getServerVersion()?.name, 'wrapper');
            // tools/list waits a while for a wrapped server still starting.
            const tools = (await client.listTools()).tools.map(tool => tool.name);
            assert.ok(tools.includes('greet') && tools.includes('slow_compute'), tools.join(', '));
            assert.equal(textOf(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })), 'Hello, Ada!');
            const taskId = await startTask(client, 'slow_compute', { seconds: 1, label: 'wrapped' });
            assert.equal(textOf(await taskResult(client, taskId)), 'Computation "wrapped" completed after 1 seconds. Result: 42.');
            // Ours first; the wrapped server's follow once it has connected (this initialize may have come before).
            assert.match(client.getInstructions() ?? '', /^Run the slow tools as tasks\./);
        } finally {
            await client.close();
        }
    },
};

/** Registers the guide's cases in the caller's describe; `app()` is the folder the package is installed in. */
export function libraryGuideSamples(app: () => string): void {
    const samples = docSamples();

    describe('docs/LIBRARY.md and README.md samples', () => {
        it('every js and ts sample has a file name, and every js sample has a check', () => {
            assert.ok(samples.length >= 6, `${samples.length} samples`);
            for (const sample of samples) {
                assert.ok(sample.title, `a \`\`\`${sample.lang} block without title="…":\n${sample.code.slice(0, 200)}`);
                assert.match(sample.title, sample.lang === 'js' ? /\.mjs$/ : /\.ts$/);
            }
            assert.deepEqual(samples.filter(s => s.lang === 'js').map(s => s.title).sort(), Object.keys(CHECKS).sort());
        });

        for (const sample of samples.filter(s => s.lang === 'js' && CHECKS[s.title])) {
            it(`${sample.title} runs with node and does what the guide says`, async () => {
                writeFileSync(join(app(), sample.title), sample.code);
                await CHECKS[sample.title]!(app(), sample.title);
            });
        }
    });
}
