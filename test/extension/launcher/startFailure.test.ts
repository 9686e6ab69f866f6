// A server that does not start says why, in its own words and the user's setting names: read from
// the real built server (dist/server.js: run `npm run build` first), against a fake `vscode`.
import { fake } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { ExtensionConfig } from '../../../extension/config';
import type { ScopedLogger } from '../../../extension/logger';
import { HttpMode } from '../../../extension/launcher/httpMode';
import { baseEnv, httpArgs, limitArgs } from '../../../extension/launcher/serverArgs';
import { ServerProcess } from '../../../extension/launcher/serverProcess';
import { FLAG_SETTINGS, inSettingWords, ServerStartError, serverReason } from '../../../extension/launcher/startFailure';

const SERVER_JS = resolve('dist/server.js');
const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const good = (): ExtensionConfig => ({ transport: 'http', defaultTtl: '1h', maxTtl: '24h', maxTasksPerClient: 7, logLevel: 'warn', taskTools: true, demoTools: true, abandonAfter: '30s', stoppedWaiting: 'keep' });
const manifest = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, unknown> }[] } };

beforeEach(() => fake.reset());

describe("the server's reason", () => {
    it('is its usage error, a fatal error or its last ERROR log line, without prefixes', () => {
        assert.equal(serverReason(['mcp-tasks: --default-ttl must not exceed --max-ttl', 'Run with --help for usage.']), '--default-ttl must not exceed --max-ttl');
        assert.equal(serverReason(['2026-12-02T05:37:21.481Z INFO  [commands] 0 command tool(s)', '2026-12-02T05:37:21.502Z ERROR [http] cannot listen on 127.0.0.1:5: EACCES']), 'cannot listen on 127.0.0.1:5: EACCES');
        assert.equal(serverReason(['mcp-tasks: fatal: Error: boom', '    at x']), 'Error: boom');
        assert.equal(serverReason(['2026-12-02T05:37:21.481Z INFO  fine']), undefined);
    });

    it('names each flag by the setting that sets it', () => {
        assert.deepEqual(inSettingWords('--default-ttl must not exceed --max-ttl'), { text: 'mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl', setting: 'mcpTasks.server.defaultTtl' });
        assert.deepEqual(inSettingWords('--port: taken'), { text: '--port: taken', setting: undefined });
    });

    it('knows every flag a setting sets, each named for a setting the manifest declares', () => {
        const all = limitArgs({ ...good(), taskTools: false, demoTools: false }).filter(arg => arg.startsWith('--'));
        const declared = Object.assign({}, ...manifest.contributes.configuration.map(section => section.properties)) as Record<string, unknown>;
        assert.deepEqual(all.filter(flag => !(flag in FLAG_SETTINGS)), [], 'a flag a setting sets is missing from FLAG_SETTINGS');
        for (const [flag, setting] of Object.entries(FLAG_SETTINGS)) {
            assert.ok(setting in declared, `${flag} → ${setting}, which package.json does not declare`);
        }
    });
});

describe('checking settings with the server', () => {
    assert.ok(existsSync(SERVER_JS), `${SERVER_JS} is missing: run npm run build first`);
    const check = (settings: ExtensionConfig) => ServerProcess.check({ command: process.execPath, args: httpArgs(SERVER_JS, settings), env: baseEnv() }, quiet);

    it('accepts settings it would start with', async () => {
        assert.equal(await check(good()), undefined);
    });

    it('refuses a default TTL above the maximum (each valid alone), naming both settings', async () => {
        const refused = await check({ ...good(), defaultTtl: '48h' });
        assert.ok(refused instanceof ServerStartError);
        assert.equal(refused.reason, 'mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl');
        assert.equal(refused.setting, 'mcpTasks.server.defaultTtl');
        assert.equal(refused.isSettingsProblem, true);
    });
});

describe('a server that does not start', () => {
    it('is a problem, shown once with the server\'s reason and Open Settings, Show Log, Restart Server; Restart Server retries it', async () => {
        let settings: ExtensionConfig = { ...good(), maxTasksPerClient: 0 };
        const mode = new HttpMode(SERVER_JS, () => settings, quiet);
        try {
            let changes = 0;
            mode.onDidChangeServer(() => changes++);
            await assert.rejects(mode.start(), (err: Error) => err instanceof ServerStartError && /mcpTasks\.server\.maxTasksPerClient: "0" must be a whole number ≥ 1/.test(err.message));
            assert.match(mode.problem ?? '', /^MCP Tasks server could not start: mcpTasks\.server\.maxTasksPerClient: "0" must be a whole number ≥ 1$/);
            assert.ok(changes > 0, 'the status bar and the view hear of it');
            const errors = () => fake.messages.filter(m => m.level === 'error');
            assert.deepEqual(errors().map(m => [m.message, m.args]), [[mode.problem, ['Open Settings', 'Show Log', 'Restart Server']]]);
            // VS Code retries a broken launch on its own: the same reason is not shown again.
            await assert.rejects(mode.start());
            assert.equal(errors().length, 1);

            settings = good();
            await mode.restart();
            assert.ok(mode.state.pid, 'restarted with the fixed settings');
            assert.equal(mode.problem, undefined);
        } finally {
            await mode.stop();
            mode.dispose();
        }
    });
});
