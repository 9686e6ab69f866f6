// The extension's command tools against a fake `vscode` and the real built server (dist/server.js:
// run `npm run build` first): what the merged file holds as trust, settings and the workspace file
// change, and that the server it launches follows the file without a restart.
import { fake, fakeTasks, fakeWorkspace } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CommandTools } from '../../../extension/commandTools/commandTools';
import { findLogFile, LOG_MAX_AGE_MS, LOGS_KEPT, pruneLogs, readLogTail } from '../../../extension/commandTools/outputLog';
import type { ScopedLogger } from '../../../extension/logger';
import { stdioArgs } from '../../../extension/launcher/serverArgs';
import { inMemory } from '../../support/serverState.js';

const warnings: string[] = [];
const log: ScopedLogger = { trace() {}, debug() {}, info() {}, warn: message => void warnings.push(message), error() {} };
const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-tasks-cmdext-')));
const ws = join(root, 'ws');
const wsFile = join(ws, '.vscode', 'mcp-tasks.json');
const tool = (name: string) => ({ name, description: `Runs ${name}.`, command: [process.execPath, '-e', `console.log(${JSON.stringify(name)})`] });
const served = (tools: CommandTools) => (JSON.parse(readFileSync(tools.launch.file, 'utf8')) as { tools: { name: string }[] }).tools.map(t => t.name);
const fileWatcher = () => fakeWorkspace.watchers.filter(w => w.pattern.endsWith('mcp-tasks.json')).at(-1)!;
const fileChanged = () => fileWatcher().change.fire({});

describe('command tools (extension)', () => {
    const made: CommandTools[] = [];
    const create = () => {
        const tools = new CommandTools(join(root, `storage-${made.length}`), log);
        made.push(tools);
        return tools;
    };

    beforeEach(() => {
        fake.reset();
        warnings.length = 0;
        mkdirSync(join(ws, '.vscode'), { recursive: true });
        writeFileSync(wsFile, JSON.stringify({ tools: [tool('from_file')] }));
        fakeWorkspace.folders = [ws];
        fakeWorkspace.trusted = true;
        fakeWorkspace.workspaceSettings = {};
    });

    after(() => {
        for (const tools of made) {
            tools.dispose();
        }
        rmSync(root, { recursive: true, force: true });
    });

    it('untrusted: only the user’s commands; trust granted: the workspace’s too, at once', () => {
        fakeWorkspace.trusted = false;
        fake.settings.commands = [tool('from_user')];
        fakeWorkspace.workspaceSettings.commands = [tool('from_ws_settings')];
        const tools = create();
        assert.deepEqual(served(tools), ['from_user']);
        assert.ok(warnings.some(w => /wait for workspace trust/.test(w)), warnings.join('\n'));
        fakeWorkspace.grantTrust();
        assert.deepEqual(served(tools), ['from_user', 'from_ws_settings', 'from_file']);
    });

    it('untrusted: counts what VS Code hides (the settings file\'s commands, the tasks.json tasks it exposes) and runs none of it, even once trusted', () => {
        // As in VS Code: the restricted settings' workspace values are hidden (fakeWorkspace.workspaceSettings stays empty).
        fakeWorkspace.trusted = false;
        fake.settings.commands = [tool('from_user')];
        const settingsFile = join(ws, '.vscode', 'settings.json');
        const tasksFile = join(ws, '.vscode', 'tasks.json');
        writeFileSync(settingsFile, `{\n  // comment\n  "mcpTasks.commands": [${JSON.stringify(tool('hidden_a'))}, ${JSON.stringify(tool('hidden_b'))}],\n  "mcpTasks.exposeVsCodeTasks": true,\n}`);
        writeFileSync(tasksFile, '{ "version": "2.0.0", "tasks": [{ "label": "build" }, { "label": "lint" },] }');
        try {
            const tools = create();
            assert.deepEqual(served(tools), ['from_user']);
            assert.equal(tools.waitingForTrust, 5, '1 of the workspace file, 2 of the settings file, 2 tasks');
            // An edit of the settings file is followed (its watcher), though VS Code reports no setting change.
            writeFileSync(settingsFile, '{ "mcpTasks.exposeVsCodeTasks": ["lint"] }');
            fakeWorkspace.watchers.filter(w => w.pattern.endsWith('settings.json')).at(-1)!.change.fire({});
            assert.equal(tools.waitingForTrust, 2);
            fakeWorkspace.grantTrust();
            assert.equal(tools.waitingForTrust, 0);
            // Trusted, the settings come from VS Code only: the text read to count is never served.
            assert.deepEqual(served(tools), ['from_user', 'from_file']);
        } finally {
            rmSync(settingsFile, { force: true });
            rmSync(tasksFile, { force: true });
        }
    });

    it('follows the setting and the workspace file: edited, broken, deleted', () => {
        const tools = create();
        assert.deepEqual(served(tools), ['from_file']);
        fake.setSetting('commands', [tool('added')]);
        assert.deepEqual(served(tools), ['added', 'from_file']);
        writeFileSync(wsFile, JSON.stringify({ tools: [tool('renamed')] }));
        fileChanged();
        assert.deepEqual(served(tools), ['added', 'renamed']);
        writeFileSync(wsFile, '{"tools": [');
        fileChanged();
        assert.deepEqual(served(tools), ['added', 'renamed'], 'a broken edit keeps what the file declared before');
        assert.ok(warnings.some(w => /not valid JSON.*keeping its commands from before/.test(w)), warnings.join('\n'));
        rmSync(wsFile);
        fileWatcher().remove.fire({});
        assert.deepEqual(served(tools), ['added']);
    });

    it('Show Output is for tasks of a tool that runs a command (served now or earlier this session), never a VS Code task’s', async () => {
        fake.settings.commands = [tool('from_user')];
        fake.settings.exposeVsCodeTasks = ['build'];
        fakeTasks.known = [{ name: 'build', source: 'Workspace' }];
        try {
            const tools = create();
            await tools.readVsCodeTasks();
            assert.deepEqual(served(tools), ['from_user', 'from_file', 'vscode_task_build']);
            assert.equal(tools.hasOutput('from_user'), true);
            assert.equal(tools.hasOutput('from_file'), true);
            assert.equal(tools.hasOutput('vscode_task_build'), false, 'a VS Code task’s output is in its terminal');
            assert.equal(tools.hasOutput('slow_compute'), false);
            fake.setSetting('commands', undefined);
            assert.deepEqual(served(tools), ['from_file', 'vscode_task_build']);
            assert.equal(tools.hasOutput('from_user'), true, 'its earlier tasks keep their logs');
        } finally {
            fakeTasks.known = [];
        }
    });

    it('a folder removed takes its commands, and its working directories, away', () => {
        const tools = create();
        fakeWorkspace.setFolders([]);
        assert.deepEqual(served(tools), []);
        fakeWorkspace.setFolders([ws]);
        assert.deepEqual(served(tools), ['from_file']);
    });

    it('the server it launches serves the file and follows a change without a restart', async () => {
        const tools = create();
        const args = stdioArgs(resolve('dist/server.js'), { defaultTtl: '1h', maxTtl: '24h', maxTasksPerClient: 10, logLevel: 'warn', taskTools: false, demoTools: true, abandonAfter: 'off', stoppedWaiting: 'keep', commands: tools.launch });
        assert.deepEqual(args.slice(-4), ['--commands', tools.launch.file, '--commands-log-dir', tools.launch.logDir]);
        const client = new Client({ name: 'cmdext-test', version: '1' });
        let changed!: () => void;
        const listChanged = new Promise<void>(resolve => (changed = resolve));
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [...args, ...inMemory()], stderr: 'ignore' }));
        try {
            const before = (await client.listTools()).tools.map(t => t.name);
            assert.ok(before.includes('from_file') && !before.includes('later'), before.join(', '));
            fake.setSetting('commands', [tool('later')]);
            await listChanged;
            const now = (await client.listTools()).tools.map(t => t.name);
            assert.ok(now.includes('later') && now.includes('from_file'), now.join(', '));
            const result = await client.callTool({ name: 'later', arguments: {} });
            assert.match(JSON.stringify(result.content), /later/);
        } finally {
            await client.close();
        }
    });
});

describe('command logs', () => {
    it('Show Output finds a task’s log by tool and task id, reads its end, and old logs are pruned', () => {
        const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-logs-'));
        try {
            const now = Date.now();
            for (let i = 0; i < LOGS_KEPT + 5; i++) {
                const path = join(dir, `tool-task${i}-1-1.log`);
                writeFileSync(path, `log ${i}\n`);
                const at = new Date(now - (LOGS_KEPT + 5 - i) * 1000);
                utimesSync(path, at, at);
            }
            const stale = join(dir, 'tool-ancient-1-1.log');
            writeFileSync(stale, 'old\n');
            utimesSync(stale, new Date(now - LOG_MAX_AGE_MS - 1000), new Date(now - LOG_MAX_AGE_MS - 1000));
            assert.equal(pruneLogs(dir, now), 6);
            assert.equal(findLogFile(dir, 'tool', 'task0'), undefined, 'the oldest beyond the count went');
            assert.equal(findLogFile(dir, 'tool', 'ancient'), undefined, 'too old went');
            const newest = findLogFile(dir, 'tool', `task${LOGS_KEPT + 4}`)!;
            assert.equal(readLogTail(newest), `log ${LOGS_KEPT + 4}\n`);
            writeFileSync(newest, 'first line\n' + 'x'.repeat(50) + '\nlast line\n');
            assert.match(readLogTail(newest, 20), /^… \(\d+ earlier bytes are in .*\)\nlast line\n$/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
