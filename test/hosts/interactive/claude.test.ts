/**
 * Claude Code interactive (tmux) against the scripted model and our server over HTTP: a task tool
 * run in the background with its result notification reaching the model, an elicitation answered
 * in the terminal, and TaskStop sent as `tasks/cancel`. What Claude Code sends is read from the
 * message tap, what the model read from the scripted model's record; the keys are the ones a user
 * presses on the form it draws (measured with capture-pane, 2.1.328). About a minute on an idle
 * machine; it runs with the rest of `npm run test:hosts`, in `npm test`'s node lane.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { SERVER_JS, startHttpServer, type HttpServer } from '../../support/helpers.js';
import { ensureHost, type InstalledHost } from '../hostInstall.js';
import { HOSTS } from '../hostList.js';
import { type HostDirs, makeHostDirs, removeHostDirs } from '../hostProcess.js';
import { startClaudeSession } from './claudeSession.js';
import { startMcpTap, type McpTap } from './mcpTap.js';
import type { TmuxSession } from './tmuxSession.js';
import { startScriptedModel, type ScriptedModel } from '../model/server.js';
import type { RecordedRequest, Turn } from '../model/script.js';
import { startRefusingProxy } from '../refusingProxy.js';
import { waitUntil } from '../../support/wait.js';

const TOKEN = 'interactive-test-token';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TEST_TIMEOUT_MS = 240_000;
/** How long a step may take on a loaded machine (a model turn, a poll, a screen redraw). */
const STEP_MS = 90_000;

/** The task notification Claude Code hands the model in a later turn, if this request carries one. */
function notificationIn(request: RecordedRequest): string | undefined {
    const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    const last = messages[messages.length - 1];
    const text = JSON.stringify(last?.content ?? '');
    return last?.role === 'user' && text.includes('<task-notification>') ? (JSON.parse(JSON.stringify(last.content)) as { text?: string }[]).map(block => block.text ?? '').join('\n') : undefined;
}

/** The transcript file of the session whose conversation holds `taskId`: written as Claude Code goes, read by --resume. */
function transcriptWith(home: string, taskId: string): Promise<string> {
    const projects = join(home, '.claude', 'projects');
    return waitUntil(
        () =>
            existsSync(projects)
                ? readdirSync(projects, { recursive: true, encoding: 'utf8' })
                      .filter(file => /[0-9a-f-]{36}\.jsonl$/.test(file))
                      .find(file => readFileSync(join(projects, file), 'utf8').includes(taskId))
                : undefined,
        `a session transcript under ${projects} with the call's task ${taskId} in it`,
        { everyMs: 250, timeoutMs: STEP_MS },
    );
}

/** The server-side task id in the text Claude Code gives the model for a call it moved to the background. */
function serverTaskIdIn(text: string): string | undefined {
    return /started server-side task ([\w-]+)/.exec(text)?.[1];
}

describe(`${HOSTS.claude.spec} interactive (tmux), tasks over HTTP`, { timeout: TEST_TIMEOUT_MS * 4 }, () => {
    let installed: InstalledHost | undefined;
    let installError: Error | undefined;
    let server: HttpServer;

    before(async () => {
        try {
            installed = await ensureHost('claude');
        } catch (error) {
            installError = error as Error;
        }
        server = await startHttpServer(['--token', TOKEN]);
    }, { timeout: TEST_TIMEOUT_MS });

    after(async () => {
        await server?.stop();
    });

    interface Run {
        model: ScriptedModel;
        tap: McpTap;
        dirs: HostDirs;
        /** Starts Claude Code in this run's HOME and waits for its prompt with our tools listed. */
        start(args?: string[]): Promise<TmuxSession>;
    }

    /** A scripted model, a tap and a HOME for one test, closed (the folder removed) after `body`. */
    async function withRun(script: Turn[], body: (run: Run) => Promise<void>): Promise<void> {
        if (!installed) {
            assert.fail(`${HOSTS.claude.spec} could not be installed from npm: ${installError?.message ?? 'unknown error'}`);
        }
        const host = installed;
        const model = await startScriptedModel(script);
        const proxy = await startRefusingProxy();
        const tap = await startMcpTap(server.url);
        const dirs = makeHostDirs('claude-interactive');
        const sessions: TmuxSession[] = [];
        /** One launch: resolves with the session once our tools are listed and the prompt is drawn, or rejects saying what the host did. */
        const launch = async (args: string[]) => {
            const listed = tap.feed.items.length;
            const session = startClaudeSession({ installed: host, dirs, modelUrl: model.url, proxyUrl: proxy.url, mcp: { url: tap.url, token: TOKEN }, args });
            sessions.push(session);
            // Our tools listed, then the prompt drawn: typing before would reach a model without them.
            await tap.feed
                .until(items => items.slice(listed).some(item => item.from === 'server' && Array.isArray((item.message.result as { tools?: unknown } | undefined)?.tools)), 'our tools listed to Claude Code', STEP_MS / 2)
                .catch((error: Error) => {
                    const sent = tap.feed.items.slice(listed).flatMap(item => (item.from === 'host' && item.message.method ? [item.message.method] : []));
                    throw new Error(`${error.message}\nthe host sent since it started: ${sent.join(', ') || 'nothing'}\nscreen:\n${session.screen()}`);
                });
            await session.waitForScreen(screen => /^❯\s*$/m.test(screen), 'the prompt', STEP_MS);
            return session;
        };
        // In three full `npm test` runs, a Claude Code that had started cleanly in every other test
        // once never listed our tools (a resumed session, tools/list never sent in 90 s); the same
        // test passed 4 of 4 runs alone. A user restarts it; so does this, once, saying why in the
        // log, and a second launch that does not list them fails the test with what the host did.
        const start = async (args: string[] = []) => {
            try {
                return await launch(args);
            } catch (error) {
                console.error(`[claude interactive] relaunching once: ${(error as Error).message.split('\n').slice(0, 2).join(' / ')}`);
                await sessions.pop()?.close();
                return launch(args);
            }
        };
        try {
            await body({ model, tap, dirs, start });
        } finally {
            for (const session of sessions) {
                await session.close();
            }
            await tap.close();
            await model.close();
            await proxy.close();
            if (!process.env.MCP_TASKS_HOSTS_KEEP) {
                removeHostDirs(dirs);
            }
        }
    }

    /**
     * Presses Enter on the form's focused Accept and resolves with the `tasks/update` it sends. On a
     * loaded machine (run 3 of stop 54, two busy loops beside `npm test`) one Enter never reached the
     * form: the screen still showed Accept focused and nothing was sent for 90 s. A user presses
     * again; so does this, only while the form is still drawn with Accept focused, and at most three
     * times, so a form that never answers still fails, with the screen as it was.
     */
    async function acceptForm(session: TmuxSession, tap: McpTap): Promise<Record<string, unknown>> {
        const sent = tap.sent('tasks/update', STEP_MS);
        let settled = false;
        void sent.then(
            () => (settled = true),
            () => (settled = true),
        );
        for (let press = 0; press < 3 && !settled; press++) {
            session.press('Enter');
            let timer: NodeJS.Timeout | undefined;
            const waited = await Promise.race([sent.then(() => true, () => true), new Promise<boolean>(done => (timer = setTimeout(() => done(false), 15_000)))]);
            clearTimeout(timer);
            if (waited || !/❯ Accept/.test(session.screen())) {
                break;
            }
        }
        return sent.catch((error: Error) => {
            throw new Error(`${error.message}\nscreen:\n${session.screen()}`);
        });
    }

    /** One session in a fresh run. */
    function withSession(script: Turn[], body: (session: TmuxSession, model: ScriptedModel, tap: McpTap) => Promise<void>): Promise<void> {
        return withRun(script, async run => body(await run.start(), run.model, run.tap));
    }

    it('runs a task tool in the background (extension declared, tasks/get polled) and hands the model its result notification', { timeout: TEST_TIMEOUT_MS }, async t => {
        await withSession([{ call: 'slow_compute', args: { seconds: 3, label: 'report' } }, { text: 'Started.' }], async (session, model, tap) => {
            await session.type('Run slow_compute for 3 seconds.');
            const notified = await model.feed.waitFor(request => notificationIn(request) !== undefined, 'a model turn with the task notification', STEP_MS);
            const call = await tap.sent('tools/call', 0);
            const meta = (call.params as { _meta?: Record<string, { extensions?: Record<string, unknown> }> })._meta ?? {};
            assert.ok(meta['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION], `tools/call declared no Tasks extension: ${JSON.stringify(call).slice(0, 800)}`);
            assert.ok(tap.methodsSent().includes('tasks/get'), `sent: ${tap.methodsSent().join(', ')}`);
            const first = model.recording.results[0];
            assert.ok(first, 'the model read no tool result');
            t.diagnostic(`the model read: ${JSON.stringify(first.text.slice(0, 300))}`);
            assert.ok(serverTaskIdIn(first.text), `the model read: ${first.text}`);
            assert.notEqual(first.isError, true);
            const notification = notificationIn(notified)!;
            t.diagnostic(`then: ${JSON.stringify(notification.slice(notification.indexOf('<task-notification>'), notification.indexOf('<task-notification>') + 400))}`);
            assert.match(notification, /<status>completed<\/status>/);
            assert.match(notification, /Computation \\?"report\\?" completed after 3 seconds\. Result: 42\./);
        });
    });

    it('shows a task\'s elicitation in the terminal; keys answer it (tasks/update) and the result reaches the model', { timeout: TEST_TIMEOUT_MS }, async t => {
        await withSession([{ call: 'confirm_delete', args: { filename: 'notes.txt' } }, { text: 'Asked.' }], async (session, model, tap) => {
            await session.type('Delete notes.txt with confirm_delete.');
            await session.waitForScreen(screen => screen.includes("Delete 'notes.txt'? This cannot be undone."), 'the elicitation form', STEP_MS);
            // The choice field is focused, Keep (the default) chosen: open it, move to Delete, select it (focus moves to Accept), accept.
            session.press('Right');
            await session.waitForScreen(screen => screen.includes("◯ Delete 'notes.txt'"), 'the opened choice', STEP_MS);
            session.press('Down');
            await session.waitForScreen(screen => screen.includes("❯ ◯ Delete 'notes.txt'"), 'Delete highlighted', STEP_MS);
            session.press('Enter');
            await session.waitForScreen(screen => /Delete the file: Delete 'notes\.txt'/.test(screen) && /❯ Accept/.test(screen), 'Delete chosen, Accept focused', STEP_MS);
            const update = await acceptForm(session, tap);
            t.diagnostic(`tasks/update: ${JSON.stringify((update.params as { inputResponses?: unknown }).inputResponses)}`);
            assert.deepEqual(Object.values((update.params as { inputResponses: Record<string, unknown> }).inputResponses), [{ action: 'accept', content: { confirm: 'delete' } }]);
            const notified = await model.feed.waitFor(request => notificationIn(request) !== undefined, 'a model turn with the task notification', STEP_MS);
            const notification = notificationIn(notified)!;
            t.diagnostic(`the model read: ${JSON.stringify(notification.slice(notification.indexOf('<task-notification>'), notification.indexOf('<task-notification>') + 400))}`);
            assert.match(notification, /<status>completed<\/status>/);
            assert.match(notification, /Confirmed: would delete 'notes\.txt'/);
        });
    });

    it('sends tasks/cancel for the task when the model calls TaskStop', { timeout: TEST_TIMEOUT_MS }, async t => {
        const script: Turn[] = [
            { call: 'slow_compute', args: { seconds: 300, label: 'long' } },
            // The id Claude Code gave the background job, as its text tells the model to use it.
            { call: 'TaskStop', args: previous => ({ task_id: /TaskStop with task_id "([^"]+)"/.exec(previous)?.[1] ?? 'none-in-the-result' }) },
            { text: 'Stopped.' },
        ];
        await withSession(script, async (session, model, tap) => {
            await session.type('Run slow_compute for 300 seconds, then stop it.');
            const cancel = await tap.sent('tasks/cancel', STEP_MS);
            const taskId = serverTaskIdIn(model.recording.results[0]?.text ?? '');
            t.diagnostic(`tasks/cancel: ${JSON.stringify(cancel.params).slice(0, 200)}`);
            assert.ok(taskId, `the model read: ${model.recording.results[0]?.text}`);
            assert.equal((cancel.params as { taskId?: string }).taskId, taskId);
            const answer = await tap.feed.waitFor(item => item.from === 'server' && item.message.id === cancel.id, 'the answer to tasks/cancel', STEP_MS);
            // In 2026-07-28 tasks/cancel answers an empty result; an error would mean the task was not ours or already gone.
            assert.ok(answer.message.result && answer.message.error === undefined, JSON.stringify(answer.message));
            const stopped = await model.feed.waitFor(request => request.view.results.length >= 2, 'the model reading TaskStop\'s result', STEP_MS);
            t.diagnostic(`TaskStop gave the model: ${JSON.stringify(stopped.view.results[1]!.text.slice(0, 200))}`);
            assert.notEqual(stopped.view.results[1]!.isError, true, stopped.view.results[1]!.text);
        });
    });

    it('--resume re-attaches to a task still running on the server (over HTTP)', { timeout: TEST_TIMEOUT_MS }, async t => {
        await withRun([{ call: 'slow_compute', args: { seconds: 25, label: 'resumed' } }, { text: 'Started.' }], async run => {
            const first = await run.start();
            await first.type('Run slow_compute for 25 seconds.');
            const poll = await run.tap.sent('tasks/get', STEP_MS);
            const taskId = (poll.params as { taskId: string }).taskId;
            // The transcript holds the call's result (the server's task id) before the session closes,
            // as it does when a user quits after seeing the call go to the background: Claude Code writes it as it goes, and killed before it
            // had, its --resume found no conversation and exited (twice in full npm test runs).
            const sessionFile = await transcriptWith(run.dirs.home, taskId);
            await first.close();
            const closedAt = run.tap.feed.items.length;
            t.diagnostic(`sent after the first session closed: ${run.tap.methodsSent().slice(-3).join(', ')}`);
            const sessionId = basename(sessionFile, '.jsonl');
            await run.start(['--resume', sessionId]);
            const again = await run.tap.feed.until(items => items.slice(closedAt).find(item => item.from === 'host' && item.message.method === 'tasks/get' && (item.message.params as { taskId?: string }).taskId === taskId), `tasks/get for ${taskId} after --resume`, STEP_MS);
            t.diagnostic(`after --resume: ${JSON.stringify(again.message.params).slice(0, 120)}`);
            const notified = await run.model.feed.waitFor(request => notificationIn(request)?.includes('Computation "resumed" completed') === true || notificationIn(request)?.includes('Computation \\"resumed\\" completed') === true, 'the task notification after --resume', STEP_MS);
            assert.match(notificationIn(notified)!, /<status>completed<\/status>/);
        });
    });
});

/**
 * The same --resume, over stdio, to a command task: Claude Code starts our server itself, and
 * closing the first session ends that server while the command still runs. The command (20 lines,
 * the last held until the test opens its gate) outlives it; the server the resumed session starts
 * takes it over from the data folder, and the end of the run (its last line, printed after the
 * restart) reaches the model. A stdio tap between the two records what they said.
 */
describe(`${HOSTS.claude.spec} interactive (tmux), a command task over stdio across a restart`, { timeout: TEST_TIMEOUT_MS * 2 }, () => {
    const TAP = fileURLToPath(new URL('./stdioTap.mjs', import.meta.url));
    const LINES = fileURLToPath(new URL('../../integration/fixtures/commands/lines.js', import.meta.url));

    it('--resume re-attaches to a command task that outlived its server, taken over by the next one', { timeout: TEST_TIMEOUT_MS }, async t => {
        const installed = await ensureHost('claude');
        const model = await startScriptedModel([{ call: 'held_lines', args: {} }, { text: 'Started.' }]);
        const proxy = await startRefusingProxy();
        const dirs = makeHostDirs('claude-interactive-stdio');
        const sessions: TmuxSession[] = [];
        const tapLog = join(dirs.root, 'stdio-tap.log');
        const gate = join(dirs.root, 'gate');
        const commands = join(dirs.root, 'commands.json');
        writeFileSync(commands, JSON.stringify({ tools: [{ name: 'held_lines', description: 'Prints 20 lines; the last once a file exists.', command: [process.execPath, LINES, '20', '0', gate] }] }));
        const mcp = { command: process.execPath, args: [TAP, tapLog, '--', process.execPath, SERVER_JS, '--stdio', '--store', 'sqlite', '--data-dir', join(dirs.root, 'data'), '--commands', commands] };
        const frames = (): string[] => (existsSync(tapLog) ? readFileSync(tapLog, 'utf8').split('\n').filter(Boolean) : []);
        const launch = async (args: string[] = []): Promise<TmuxSession> => {
            const from = frames().length;
            const session = startClaudeSession({ installed, dirs, modelUrl: model.url, proxyUrl: proxy.url, mcp, args });
            sessions.push(session);
            await waitUntil(() => frames().slice(from).some(frame => frame.startsWith('< ') && frame.includes('"tools":[')), 'our tools listed to Claude Code over stdio', { everyMs: 100, timeoutMs: STEP_MS / 2 }).catch((error: Error) => {
                throw new Error(`${error.message}\nframes since it started:\n${frames().slice(from).join('\n').slice(0, 2000)}\nscreen:\n${session.screen()}`);
            });
            await session.waitForScreen(screen => /^❯\s*$/m.test(screen), 'the prompt', STEP_MS);
            return session;
        };
        try {
            const first = await launch();
            await first.type('Run held_lines.');
            const read = await model.feed.waitFor(request => request.view.results.length >= 1, 'the model reading the call\'s result', STEP_MS);
            const taskId = serverTaskIdIn(read.view.results[0]!.text);
            assert.ok(taskId, `the model read: ${read.view.results[0]!.text}`);
            const sessionFile = await transcriptWith(dirs.home, taskId);
            await first.close();
            const closedAt = frames().length;
            await launch(['--resume', basename(sessionFile, '.jsonl')]);
            const poll = await waitUntil(() => frames().slice(closedAt).find(frame => frame.startsWith('> ') && frame.includes('"tasks/get"') && frame.includes(taskId)), `tasks/get for ${taskId} from the resumed session`, { everyMs: 100, timeoutMs: STEP_MS });
            t.diagnostic(`after --resume: ${poll.slice(0, 160)}`);
            // The first answer for it after the restart: the new server took it over, still running.
            const answered = await waitUntil(() => frames().slice(closedAt).find(frame => frame.startsWith('< ') && frame.includes(taskId) && /"status":"(working|completed|failed|cancelled)"/.test(frame)), `the new server's answer for ${taskId}`, { everyMs: 100, timeoutMs: STEP_MS });
            assert.match(answered, /"status":"working"/, 'taken over, still running');
            writeFileSync(gate, '');
            const notified = await model.feed.waitFor(request => notificationIn(request)?.includes('line 20/20') === true, 'the task notification with the line printed after the restart', STEP_MS);
            const notification = notificationIn(notified)!;
            t.diagnostic(`the model read: ${JSON.stringify(notification.slice(notification.indexOf('<task-notification>'), notification.indexOf('<task-notification>') + 400))}`);
            assert.match(notification, /<status>completed<\/status>/);
        } finally {
            for (const session of sessions) {
                await session.close();
            }
            await model.close();
            await proxy.close();
            if (!process.env.MCP_TASKS_HOSTS_KEEP) {
                removeHostDirs(dirs);
            }
        }
    });
});
