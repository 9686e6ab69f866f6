// The transport modes' decisions against a fake `vscode`, with the real built server
// (dist/server.js: run `npm run build` first): what each mode provides, resolves, starts and restarts.
import { EventEmitter, fake, McpHttpServerDefinition, McpStdioServerDefinition } from '../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { Env } from '@mcp-tasks/server/contract';
import { ConfigWatcher, launchSettingsChanged, readConfig, type ExtensionConfig } from '../../../extension/config';
import { SERVER_ID } from '../../../extension/constants';
import type { ScopedLogger } from '../../../extension/logger';
import { HttpMode } from '../../../extension/launcher/httpMode';
import type { OwnerConnection, OwnerEndpoint } from '../../../extension/owner/ownerConnection';
import { ServerController, type SettingsCheck } from '../../../extension/launcher/serverController';
import { ServerStartError } from '../../../extension/launcher/startFailure';
import type { ServerMode } from '../../../extension/launcher/serverMode';
import { limitArgs } from '../../../extension/launcher/serverArgs';
import { StdioMode } from '../../../extension/launcher/stdioMode';
import { waitUntil } from '../../support/wait.js';

const SERVER_JS = resolve('dist/server.js');
const quiet: ScopedLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const config = (): ExtensionConfig => ({ transport: 'http', defaultTtl: '2h', maxTtl: '24h', maxTasksPerClient: 7, logLevel: 'warn', taskTools: true, demoTools: true, abandonAfter: '30s', stoppedWaiting: 'keep' });
const asDefinition = (value: object) => value as unknown as vscode.McpServerDefinition;

function alive(pid: number | undefined): boolean {
    try {
        return pid !== undefined && process.kill(pid, 0);
    } catch {
        return false;
    }
}

/** An initialize POST with `token`: 200 opens a session, 401 refuses the token. */
function initialize(url: string, token: string): Promise<Response> {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'unit', version: '1' } } };
    return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) }).then(async res => {
        await res.arrayBuffer();
        return res;
    });
}

function nextEvent<T>(event: vscode.Event<T>): Promise<T> {
    return new Promise(done => {
        const subscription = event(value => {
            subscription.dispose();
            done(value);
        });
    });
}

beforeEach(() => fake.reset());

describe('launch settings', () => {
    const base = config();
    it('compares exactly the settings a server is launched with', () => {
        assert.equal(launchSettingsChanged(base, { ...base }), false);
        assert.equal(launchSettingsChanged(base, { ...base, samplingModel: 'gpt-4o' }), false, 'the sampling model needs no new server');
        for (const change of [{ transport: 'stdio' }, { defaultTtl: '3h' }, { maxTtl: '1h' }, { maxTasksPerClient: 8 }, { logLevel: 'debug' }, { taskTools: false }, { demoTools: false }, { abandonAfter: 'off' }] as const) {
            assert.equal(launchSettingsChanged(base, { ...base, ...change }), true, JSON.stringify(change));
        }
    });

    it('passes --abandon-after unless it is off, and --no-task-tools / --no-demo-tools when those tools are turned off', () => {
        assert.deepEqual(limitArgs(base).slice(-4), ['--abandon-after', '30s', '--stopped-waiting', 'keep']);
        assert.ok(!limitArgs(base).includes('--no-task-tools'));
        assert.ok(!limitArgs(base).includes('--no-demo-tools'), 'demoTools true');
        assert.deepEqual(limitArgs({ ...base, taskTools: false, demoTools: false }).slice(-6), ['--no-task-tools', '--no-demo-tools', '--abandon-after', '30s', '--stopped-waiting', 'keep']);
        for (const off of ['off', '0', ' ']) {
            assert.ok(!limitArgs({ ...base, abandonAfter: off }).includes('--abandon-after'), JSON.stringify(off));
        }
        assert.ok(limitArgs({ ...base, taskTools: false }).includes('--no-task-tools'));
    });

    it('the watcher re-reads settings and announces only launch changes', () => {
        const watcher = new ConfigWatcher();
        const seen: string[] = [];
        watcher.onDidChangeLaunchSettings(({ previous, current }) => seen.push(`${previous.maxTtl}→${current.maxTtl}`));
        fake.setSetting('sampling.model', 'gpt-4o');
        assert.equal(watcher.current.samplingModel, 'gpt-4o');
        assert.deepEqual(seen, []);
        fake.setSetting('server.maxTtl', '2h');
        assert.deepEqual(seen, ['24h→2h']);
        assert.equal(watcher.current.demoTools, true, 'demo tools are on by default');
        fake.setSetting('demoTools', false);
        assert.equal(watcher.current.demoTools, false);
        assert.equal(seen.length, 2, 'turning the demo tools off needs a new server');
        assert.deepEqual(watcher.current, { ...readConfig(), wrap: undefined });
        watcher.dispose();
    });

    it('a change of the wrapped servers (mcpTasks.wrap or a workspace file) is a launch change, and a settings change keeps them', () => {
        const wrapped = new EventEmitter<string | undefined>();
        const watcher = new ConfigWatcher({ text: undefined, onDidChange: wrapped.event as vscode.Event<string | undefined> });
        const seen: string[] = [];
        watcher.onDidChangeLaunchSettings(({ previous, current }) => seen.push(`${previous.wrap}→${current.wrap}`));
        wrapped.fire('{"servers":{"a":{}}}');
        wrapped.fire('{"servers":{"a":{}}}');
        fake.setSetting('sampling.model', 'gpt-4o-mini');
        assert.equal(watcher.current.wrap, '{"servers":{"a":{}}}');
        wrapped.fire(undefined);
        assert.deepEqual(seen, ['undefined→{"servers":{"a":{}}}', '{"servers":{"a":{}}}→undefined']);
        watcher.dispose();
    });
});

describe('HttpMode', () => {
    assert.ok(existsSync(SERVER_JS), `${SERVER_JS} is missing: run npm run build first`);
    const mode = new HttpMode(SERVER_JS, config, quiet);
    after(async () => {
        await mode.stop();
        mode.dispose();
    });

    it('provides a placeholder definition and starts nothing', async () => {
        const definition = mode.provide('3') as unknown as McpHttpServerDefinition;
        assert.ok(definition instanceof McpHttpServerDefinition);
        assert.equal(definition.uri.toString(), 'http://127.0.0.1/mcp');
        assert.equal(definition.version, '3');
        assert.equal(mode.state.pid, undefined);
        assert.equal(mode.ownerEndpoint, undefined);
        await mode.restart();
        assert.equal(mode.state.pid, undefined, 'restart starts nothing that was not running');
    });

    it('refuses a stale stdio definition without starting a server', async () => {
        assert.equal(await mode.resolve(asDefinition(new McpStdioServerDefinition('MCP Tasks', 'node', []))), undefined);
        assert.equal(mode.state.pid, undefined);
    });

    it('starts the server on resolve and hands VS Code its URL and the client token; the owner gets the owner token', async () => {
        const changed = nextEvent(mode.onDidChangeServer);
        const definition = (await mode.resolve(asDefinition(mode.provide('4')))) as unknown as McpHttpServerDefinition;
        await changed;
        assert.ok(alive(mode.state.pid), 'a server process runs');
        assert.match(definition.uri.toString(), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.equal(definition.uri.toString(), mode.state.url);
        const { token: clientToken } = mode.clientEndpoint!;
        const { token: ownerToken } = mode.ownerEndpoint!;
        assert.match(clientToken, /^[\w-]{43}$/);
        assert.match(ownerToken, /^[\w-]{43}$/);
        assert.notEqual(clientToken, ownerToken);
        assert.equal(definition.headers.Authorization, `Bearer ${clientToken}`);
        assert.deepEqual(mode.ownerEndpoint, { url: mode.state.url, token: ownerToken, pid: mode.state.pid });
        assert.deepEqual(mode.clientEndpoint, { url: mode.state.url, token: clientToken });
        const refused = await fetch(mode.state.url!, { method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{}' });
        assert.equal(refused.status, 401, 'the server was launched with our tokens');
        assert.equal((await initialize(mode.state.url!, ownerToken)).status, 200, 'the owner token opens it');
    });

    it('restarts a running server: a new process with new tokens, which refuses the old ones; VS Code is told to reconnect', async () => {
        const before = mode.state.pid;
        const old = { owner: mode.ownerEndpoint!.token, client: mode.clientEndpoint!.token };
        const reason = nextEvent(mode.onDidChangeDefinition);
        await mode.restart();
        assert.equal(await reason, 'server restarted');
        assert.ok(alive(mode.state.pid));
        assert.notEqual(mode.state.pid, before);
        assert.ok(!alive(before), 'the old process is gone');
        assert.notEqual(mode.ownerEndpoint!.token, old.owner);
        assert.notEqual(mode.clientEndpoint!.token, old.client);
        for (const token of [old.owner, old.client]) {
            assert.equal((await initialize(mode.state.url!, token)).status, 401, 'a token of the previous launch is refused');
        }
        assert.equal((await initialize(mode.state.url!, mode.ownerEndpoint!.token)).status, 200);
        const definition = (await mode.resolve(asDefinition(mode.provide('5')))) as unknown as McpHttpServerDefinition;
        assert.equal(definition.headers.Authorization, `Bearer ${mode.clientEndpoint!.token}`, 'VS Code gets the new client token');
    });

    it('stop ends the process', async () => {
        const pid = mode.state.pid;
        await mode.stop();
        assert.equal(mode.state.pid, undefined);
        assert.equal(mode.ownerEndpoint, undefined);
        assert.ok(!alive(pid));
    });
});

describe('StdioMode', () => {
    it('provides a stdio definition with no secret; each resolve adds a fresh owner token and announce file, never a client token', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        try {
            const definition = mode.provide('2') as unknown as McpStdioServerDefinition;
            assert.ok(definition instanceof McpStdioServerDefinition);
            assert.equal(definition.command, process.execPath);
            assert.deepEqual(definition.args, [SERVER_JS, '--stdio', '--default-ttl', '2h', '--max-ttl', '24h', '--max-tasks-per-client', '7', '--log-level', 'warn', '--abandon-after', '30s', '--stopped-waiting', 'keep']);
            // Every other variable is a flag's, set empty so the user's environment does not reach the server.
            const set = Object.fromEntries(Object.entries(definition.env).filter(([, value]) => value !== ''));
            assert.deepEqual(set, { ELECTRON_RUN_AS_NODE: '1' }, 'the listed definition carries no secret');
            const first = { ...((await mode.resolve(mode.provide('2'))) as unknown as McpStdioServerDefinition).env };
            const second = { ...((await mode.resolve(mode.provide('2'))) as unknown as McpStdioServerDefinition).env };
            for (const env of [first, second]) {
                assert.match(String(env[Env.ownerToken]), /^[\w-]{43}$/);
                assert.equal(typeof env[Env.ownerAnnounce], 'string');
                assert.equal(env[Env.clientTokens], '', 'no client token (an empty variable is unset)');
            }
            assert.notEqual(first[Env.ownerToken], second[Env.ownerToken], 'every launch gets its own token');
            assert.notEqual(first[Env.ownerAnnounce], second[Env.ownerAnnounce], 'and its own announce file');
            assert.equal(mode.clientEndpoint, undefined);
        } finally {
            mode.dispose();
        }
    });

    it('launches the server with --no-demo-tools when the demo tools are turned off', () => {
        const mode = new StdioMode(SERVER_JS, () => ({ ...config(), demoTools: false }), quiet);
        try {
            const definition = mode.provide('3') as unknown as McpStdioServerDefinition;
            assert.deepEqual(definition.args.slice(-5), ['--no-demo-tools', '--abandon-after', '30s', '--stopped-waiting', 'keep']);
        } finally {
            mode.dispose();
        }
    });

    it('resolves only its own kind of definition', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        try {
            const stdio = mode.provide('1');
            assert.equal(await mode.resolve(stdio), stdio);
            assert.equal(await mode.resolve(asDefinition(new McpHttpServerDefinition('MCP Tasks', { toString: () => 'http://x' }))), undefined);
        } finally {
            mode.dispose();
        }
    });

    it('asks VS Code to start the server until one announces its owner endpoint, which the owner then uses', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        const definition = (await mode.resolve(mode.provide('1'))) as unknown as McpStdioServerDefinition;
        await mode.start();
        assert.deepEqual(fake.commands, [{ id: 'workbench.mcp.startServer', args: [SERVER_ID, { autoTrustChanges: true }] }]);
        // Launch the server the way VS Code does, from the definition.
        const announced = nextEvent(mode.onDidChangeServer);
        const child = spawn(definition.command, definition.args, { env: { ...process.env, ...(definition.env as Record<string, string>) }, stdio: ['pipe', 'pipe', 'ignore'] });
        try {
            await announced;
            assert.equal(mode.ownerEndpoint?.pid, child.pid);
            assert.match(mode.ownerEndpoint?.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\//);
            assert.equal(mode.ownerEndpoint?.token, definition.env[Env.ownerToken]);
            fake.commands = [];
            await mode.start();
            assert.deepEqual(fake.commands, [], 'a running server is not started again');
        } finally {
            child.stdin.end();
            await new Promise(done => child.once('exit', done));
            mode.dispose();
        }
    });

    it('restarts by giving VS Code a new definition version', async () => {
        const mode = new StdioMode(SERVER_JS, config, quiet);
        const reason = nextEvent(mode.onDidChangeDefinition);
        await mode.restart();
        assert.equal(await reason, 'restart requested');
        mode.dispose();
    });
});

/** A ServerMode that records what the controller asks of it. */
class RecordingMode implements ServerMode {
    readonly calls: string[] = [];
    readonly server = new EventEmitter<void>();
    readonly definition = new EventEmitter<string>();
    readonly onDidChangeServer = this.server.event;
    readonly onDidChangeDefinition = this.definition.event;
    ownerEndpoint: OwnerEndpoint | undefined;
    problem: string | undefined;
    readonly clientEndpoint = undefined;
    readonly state = {};
    constructor(readonly transport: 'http' | 'stdio') {
        this.ownerEndpoint = { url: `http://${transport}.invalid/mcp`, token: 't' };
    }
    provide(version: string) {
        this.calls.push(`provide ${version}`);
        return asDefinition({ transport: this.transport, version });
    }
    async resolve(definition: vscode.McpServerDefinition) {
        return definition;
    }
    async start() {
        this.calls.push('start');
    }
    async restart() {
        this.calls.push('restart');
    }
    async stop() {
        this.calls.push('stop');
    }
    dispose() {
        this.calls.push('dispose');
    }
}

describe('ServerController', () => {
    function setup(untilStopAllowed?: () => Promise<void>, checkSettings?: SettingsCheck) {
        const made: RecordingMode[] = [];
        const endpoints: (string | undefined)[] = [];
        const owner = { connected: false, setEndpoint: (e?: OwnerEndpoint) => endpoints.push(e?.url), onDidChangeState: new EventEmitter<boolean>().event } as unknown as OwnerConnection;
        const watcher = new ConfigWatcher();
        const controller = new ServerController(
            transport => {
                const mode = new RecordingMode(transport);
                made.push(mode);
                return mode;
            },
            watcher,
            owner,
            quiet,
            untilStopAllowed,
            checkSettings,
        );
        let refreshes = 0;
        controller.provider.onDidChangeMcpServerDefinitions(() => refreshes++);
        return { made, endpoints, controller, watcher, refreshes: () => refreshes };
    }

    it('starts nothing when built, and points the owner at the mode', () => {
        const { made, endpoints, controller, watcher } = setup();
        assert.deepEqual(made.map(m => m.transport), ['http']);
        assert.deepEqual(made[0]!.calls, []);
        assert.deepEqual(endpoints, ['http://http.invalid/mcp']);
        controller.dispose();
        watcher.dispose();
        assert.deepEqual(made[0]!.calls, ['dispose']);
        assert.equal(endpoints.at(-1), undefined, 'the owner lets go on dispose');
    });

    it('restarts the same mode when a launch setting changes, and ignores other settings', async () => {
        const { made, controller, watcher } = setup();
        fake.setSetting('sampling.model', 'x');
        fake.setSetting('server.logLevel', 'debug');
        // Changes apply one at a time, in order: once a later transport switch has happened, every
        // earlier change has been applied, so the calls below are all the settings caused.
        fake.setSetting('transport', 'stdio');
        await waitUntil(() => made.length === 2 && made[0]!.calls.includes('dispose'), 'the changes to be applied');
        assert.deepEqual(made[0]!.calls, ['restart', 'stop', 'dispose'], 'one restart, for the log level only');
        controller.dispose();
        watcher.dispose();
    });

    it('leaves the server running on settings the server would refuse, and says why with Open Settings', async () => {
        const checked: string[] = [];
        const { made, controller, watcher } = setup(undefined, settings => {
            checked.push(`${settings.defaultTtl}/${settings.maxTtl}`);
            return Promise.resolve(settings.defaultTtl === '48h' ? new ServerStartError('mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl', 2, 'mcpTasks.server.defaultTtl') : undefined);
        });
        fake.setSetting('server.defaultTtl', '48h');
        await waitUntil(() => fake.messages.some(m => m.level === 'error'), 'the refusal');
        assert.deepEqual(made[0]!.calls, [], 'not restarted');
        const shown = fake.messages.filter(m => m.level === 'error');
        assert.deepEqual(
            shown.map(m => [m.message, m.args]),
            [['MCP Tasks did not apply the new settings: mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl. The server keeps running with the previous ones.', ['Open Settings', 'Show Log']]],
        );
        fake.setSetting('server.defaultTtl', '2h');
        await waitUntil(() => made[0]!.calls.length > 0, 'the restart');
        assert.deepEqual(made[0]!.calls, ['restart'], 'fixed settings apply');
        assert.deepEqual(checked, ['48h/24h', '2h/24h']);
        controller.dispose();
        watcher.dispose();
    });

    it('waits for permission (running tasks) before new settings stop the server, and applies changes in order', async () => {
        let allow: () => void = () => undefined;
        const asked: number[] = [];
        const { made, controller, watcher } = setup(() => {
            asked.push(asked.length);
            return asked.length === 1 ? new Promise<void>(resolve => (allow = resolve)) : Promise.resolve();
        });
        fake.setSetting('transport', 'stdio');
        await waitUntil(() => asked.length === 1, 'the first change to ask for permission');
        // Queued behind the first change, which cannot go on until allowed.
        fake.setSetting('transport', 'http');
        assert.equal(controller.settingsWaiting, true);
        assert.equal(made.length, 1, 'nothing switched while it waits');
        assert.deepEqual(made[0]!.calls, []);
        allow();
        await waitUntil(() => made.length === 3 && !controller.settingsWaiting, 'both changes to be applied');
        assert.deepEqual(made.map(m => m.transport), ['http', 'stdio', 'http'], 'the second change applied after the first');
        assert.equal(controller.mode, made[2]);
        controller.dispose();
        watcher.dispose();
    });

    it('switches modes on a transport change: VS Code is told, the owner follows, the old server stops', async () => {
        const { made, endpoints, controller, watcher, refreshes } = setup();
        const [http] = made;
        fake.setSetting('transport', 'stdio');
        await waitUntil(() => http!.calls.includes('dispose'), 'the switch to stdio');
        const stdio = made[1]!;
        assert.equal(stdio.transport, 'stdio');
        assert.equal(controller.mode, stdio);
        assert.equal(refreshes(), 1);
        assert.deepEqual(controller.provider.provideMcpServerDefinitions(), [{ transport: 'stdio', version: '2' }]);
        assert.deepEqual(http!.calls, ['stop', 'dispose']);
        assert.equal(endpoints.at(-1), 'http://stdio.invalid/mcp');
        // The old mode no longer reaches VS Code or the owner; the new one does.
        http!.definition.fire('late');
        http!.server.fire();
        assert.equal(refreshes(), 1);
        stdio.definition.fire('restart requested');
        assert.equal(refreshes(), 2);
        stdio.ownerEndpoint = undefined;
        stdio.problem = 'down';
        const problems: (string | undefined)[] = [];
        controller.onDidChangeProblem(p => problems.push(p));
        stdio.server.fire();
        assert.equal(endpoints.at(-1), undefined);
        assert.deepEqual(problems, ['down']);
        controller.dispose();
        watcher.dispose();
    });
});
