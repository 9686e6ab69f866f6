// The extension's wrapped servers against a fake `vscode`: what each launch is handed as trust,
// the setting and the workspace file change; the file's permissions and its removal on stop; and
// one notification per wrong entry, naming it, with the place to fix it.
import { EventEmitter, fake, fakeWorkspace } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import type { ScopedLogger } from '../../../extension/logger';
import { WrapServers } from '../../../extension/wrap/wrapServers';
import { posixOnly } from '../../support/platforms.js';

const log: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-tasks-wrapext-')));
const ws = join(root, 'ws');
const wsFile = join(ws, '.vscode', 'mcp-tasks.json');
const names = (text: string | undefined) => Object.keys((JSON.parse(text ?? '{"servers":{}}') as { servers: object }).servers);

describe('wrapped servers (extension)', () => {
    const filesRead = new EventEmitter<void>();
    const made: WrapServers[] = [];
    const create = () => {
        const wrap = new WrapServers(join(root, `storage-${made.length}`), log, filesRead.event as vscode.Event<void>);
        made.push(wrap);
        return wrap;
    };

    beforeEach(() => {
        fake.reset();
        mkdirSync(join(root, `storage-${made.length}`), { recursive: true });
        mkdirSync(join(ws, '.vscode'), { recursive: true });
        writeFileSync(wsFile, JSON.stringify({ tools: [], wrap: { fromFile: { command: 'srv-file', args: ['${workspaceFolder}'] } } }));
        fakeWorkspace.folders = [ws];
        fakeWorkspace.trusted = false;
    });

    // Each test's instances stop with it: a live one would answer the next test's setting changes.
    afterEach(() => {
        for (const wrap of made) {
            wrap.dispose();
        }
    });

    after(() => rmSync(root, { recursive: true, force: true }));

    it("serves the setting at once and the workspace file's servers once trusted; each change fires once", () => {
        fake.settings.wrap = { fromUser: { type: 'stdio', command: 'srv-user' } };
        const wrap = create();
        const seen: (string | undefined)[] = [];
        wrap.onDidChange(text => seen.push(text));
        assert.deepEqual(names(wrap.text), ['fromUser']);
        fakeWorkspace.grantTrust();
        assert.deepEqual(names(wrap.text), ['fromUser', 'fromFile']);
        assert.equal((JSON.parse(wrap.text!) as { servers: { fromFile: { args: string[] } } }).servers.fromFile.args[0], ws);
        // Half-way through an edit: what the file wrapped last stays, so nothing restarts.
        writeFileSync(wsFile, '{"wrap": {');
        filesRead.fire();
        assert.deepEqual(names(wrap.text), ['fromUser', 'fromFile']);
        rmSync(wsFile);
        filesRead.fire();
        fake.setSetting('wrap', undefined);
        assert.equal(wrap.text, undefined);
        assert.deepEqual(seen.map(names), [['fromUser', 'fromFile'], ['fromUser'], []]);
    });

    it('writes the file a launch uses, readable by its owner only, and removes it on stop', posixOnly('Windows has no file mode 0600'), () => {
        const wrap = create();
        const file = wrap.launchFile('{"servers": {"a": {"command": "x"}}}\n')!;
        assert.equal(readFileSync(file, 'utf8'), '{"servers": {"a": {"command": "x"}}}\n');
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.equal(wrap.launchFile(undefined), undefined);
        assert.ok(!existsSync(file), 'no wrapped servers: no file');
        wrap.launchFile('{"servers": {}}');
        wrap.dispose();
        assert.ok(!existsSync(file), 'removed when the extension stops');
    });

    it('names a wrong entry once, in a notification offering the place to fix it; the others are served', () => {
        fakeWorkspace.trusted = true;
        fake.settings.wrap = { good: { command: 'srv' }, bad: { command: 'srv', args: '--stdio' } };
        writeFileSync(wsFile, JSON.stringify({ wrap: { worse: { type: 'sse', url: 'http://x/sse' } } }));
        const wrap = create();
        assert.deepEqual(names(wrap.text), ['good']);
        const errors = fake.messages.filter(message => message.level === 'error');
        assert.deepEqual(
            errors.map(message => [message.message, message.args]),
            [
                ['MCP Tasks does not wrap this server: user settings (mcpTasks.wrap): server "bad": args must be a list of strings. The other servers are served.', ['Open Settings']],
                [`MCP Tasks does not wrap this server: ${wsFile}: server "worse": type "sse" is not supported; use "stdio" (command) or "http" (url); SSE-only servers are not. The other servers are served.`, ['Open File']],
            ],
        );
        // The same problem after another change is not shown again.
        fake.setSetting('wrap', { ...fake.settings.wrap as object, other: { command: 'srv2' } });
        assert.deepEqual(names(wrap.text), ['good', 'other']);
        assert.equal(fake.messages.filter(message => message.level === 'error').length, 2);
    });
});
