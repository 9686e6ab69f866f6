import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { downstreamSpecs, parseHeaders, parseWrapConfig } from '../../../server/src/gateway/config.js';
import { parseCli } from '../../../server/src/options.js';
import { SERVER_JS } from '../../support/helpers.js';

// What the wrap flags and a pasted mcpServers file become, and the clear errors for what is wrong.

describe('wrap configuration', () => {
    it('reads the mcpServers shape of Claude Desktop, Cursor and .mcp.json, with sync lists', () => {
        const specs = parseWrapConfig(
            {
                mcpServers: {
                    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { DEBUG: '1' }, cwd: 'work', sync: ['echo'] },
                    remote: { url: 'https://example.test/mcp', headers: { Authorization: 'Bearer x' } },
                },
            },
            'test',
            '/base',
        );
        assert.deepEqual(specs, [
            { kind: 'stdio', name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { DEBUG: '1' }, cwd: '/base/work', sync: ['echo'] },
            { kind: 'http', name: 'remote', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer x' }, sync: [] },
        ]);
    });

    it("reads VS Code's servers shape with type", () => {
        const specs = parseWrapConfig({ servers: { a: { type: 'stdio', command: 'a-server' }, b: { type: 'http', url: 'http://127.0.0.1:1/mcp' } } }, 'test', '/');
        assert.deepEqual(
            specs.map(spec => [spec.name, spec.kind]),
            [
                ['a', 'stdio'],
                ['b', 'http'],
            ],
        );
    });

    it('refuses what it cannot run, saying what to fix', () => {
        assert.throws(() => parseWrapConfig({}, 'f', '/'), /expected \{"mcpServers"/);
        assert.throws(() => parseWrapConfig({ mcpServers: {} }, 'f', '/'), /mcpServers is empty/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: {} } }, 'f', '/'), /server "x": needs "command".*or "url"/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { type: 'sse', url: 'http://a' } } }, 'f', '/'), /type "sse" is not supported/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { command: 'a', args: [1] } } }, 'f', '/'), /args must be a list of strings/);
        assert.throws(() => parseWrapConfig({ mcpServers: { 'bad name': { command: 'a' } } }, 'f', '/'), /letters, digits/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { url: 'ftp://a' } } }, 'f', '/'), /must be an http:\/\/ or https:\/\/ URL/);
    });

    it('names a --wrap-url server after what its URL names, never its address (the prefix of colliding tool names)', () => {
        const nameOf = (url: string) => downstreamSpecs({ url })[0]?.name;
        assert.equal(nameOf('https://mcp.linear.app/sse'), 'linear');
        assert.equal(nameOf('https://api.githubcopilot.com/mcp/'), 'githubcopilot');
        assert.equal(nameOf('http://127.0.0.1:3000/tests/mcp'), 'tests');
        assert.equal(nameOf('http://localhost:8080/mcp'), 'http');
        assert.equal(nameOf('http://[::1]:8080/v1/mcp'), 'http');
    });

    it('names a --wrap server after what it runs, and keeps two servers apart', () => {
        const dir = mkdtempSync(join(tmpdir(), 'wrap-config-'));
        try {
            const file = join(dir, 'mcp.json');
            writeFileSync(file, JSON.stringify({ mcpServers: { 'server-everything': { command: 'x' } } }));
            const specs = downstreamSpecs({ command: ['npx', '-y', '@modelcontextprotocol/server-everything'], url: 'http://127.0.0.1:3001/mcp', headers: ['X-Key: a: b'], configFile: file });
            assert.deepEqual(
                specs.map(spec => spec.name),
                ['server-everything', 'http', 'server-everything-2'],
            );
            assert.deepEqual((specs[1] as { headers: unknown }).headers, { 'X-Key': 'a: b' });
            assert.throws(() => downstreamSpecs({ configFile: join(dir, 'missing.json') }), /--wrap-config: the file \S+missing\.json does not exist/);
            writeFileSync(file, '{ nope');
            assert.throws(() => downstreamSpecs({ configFile: file }), /is not JSON/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it('reads restartOnIgnoredCancel and --wrap-cancel-restart for a server the gateway starts, and refuses it elsewhere', () => {
        const [spec] = parseWrapConfig({ mcpServers: { x: { command: 'a', restartOnIgnoredCancel: 10 } } }, 'f', '/');
        assert.equal(spec?.kind === 'stdio' && spec.restartOnIgnoredCancel, 10);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { command: 'a', restartOnIgnoredCancel: 0 } } }, 'f', '/'), /restartOnIgnoredCancel: give whole seconds from 1 to 3600/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { command: 'a', restartOnIgnoredCancel: '5' } } }, 'f', '/'), /give whole seconds/);
        assert.throws(() => parseWrapConfig({ mcpServers: { x: { url: 'http://a/mcp', restartOnIgnoredCancel: 5 } } }, 'f', '/'), /restartOnIgnoredCancel is for a server the gateway starts/);
        const options = parseCli(['--stdio', '--wrap-cancel-restart', '7', '--wrap', '--', 'node', 'server.js'], {});
        assert.equal(options.wrap[0]?.kind === 'stdio' && options.wrap[0].restartOnIgnoredCancel, 7);
        assert.equal(parseCli(['--stdio', '--wrap', '--', 'node', 'server.js'], {}).wrap[0]?.kind === 'stdio' && 'restartOnIgnoredCancel' in parseCli(['--stdio', '--wrap', '--', 'node', 'server.js'], {}).wrap[0]!, false);
        assert.throws(() => parseCli(['--wrap-cancel-restart', '5'], {}), /--wrap-cancel-restart needs --wrap/);
    });

    it('parses headers and refuses broken ones', () => {
        assert.deepEqual(parseHeaders(['Authorization: Bearer t', 'X-A:1'], '--wrap-header'), { Authorization: 'Bearer t', 'X-A': '1' });
        assert.throws(() => parseHeaders(['no colon'], '--wrap-header'), /must be "Name: value"/);
        assert.throws(() => parseHeaders(['Bad Name: x'], '--wrap-header'), /must be "Name: value"/);
    });

    it('takes the command line after -- on the command line, and turns the demo tools off', () => {
        const options = parseCli(['--stdio', '--defer-after', '20s', '--wrap', '--', 'node', 'server.js', '--port', '1'], {});
        assert.deepEqual(options.wrap.map(spec => spec.kind === 'stdio' && [spec.command, ...spec.args]), [['node', 'server.js', '--port', '1']]);
        assert.equal(options.demoTools, false);
        assert.equal(options.deferAfterMs, 20_000);
        assert.equal(parseCli([], {}).deferAfterMs, 50_000);
        assert.equal(parseCli([], {}).demoTools, true);
        assert.throws(() => parseCli(['--wrap'], {}), /--wrap: write the program after "--"/);
        assert.throws(() => parseCli(['--', 'x'], {}), /"--" must follow --wrap/);
        assert.throws(() => parseCli(['--wrap-header', 'A: b'], {}), /--wrap-header needs --wrap-url/);
    });
});

describe('the bundled gateway client', () => {
    it('a dist/server.js without dist/gateway-client.js beside it says what is missing and exits 1', () => {
        const dir = mkdtempSync(join(tmpdir(), 'no-gateway-client-'));
        try {
            // The launcher and the CLI it loads, without the client.
            copyFileSync(SERVER_JS, join(dir, 'server.js'));
            copyFileSync(join(dirname(SERVER_JS), 'server-main.js'), join(dir, 'server-main.js'));
            const run = spawnSync(process.execPath, [join(dir, 'server.js'), '--stdio', '--wrap', '--', process.execPath, '-e', ''], { encoding: 'utf8', input: '', timeout: 30_000 });
            assert.equal(run.status, 1, run.stderr);
            assert.match(run.stderr, /\[gateway\] --wrap needs the MCP SDK client, the file dist\/gateway-client\.js beside dist\/server\.js: run npm run build, which makes both/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
