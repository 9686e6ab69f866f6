// The wrapped servers of the extension: mcpTasks.wrap and the workspace files' "wrap", merged into
// the one --wrap-config file the server reads; the server's own parser reads back what was written.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { expandVariables, mergeWrap, problemText, type WrapSource } from '../../../../extension/wrap/wrapSources';
import { limitArgs } from '../../../../extension/launcher/serverArgs';
import { parseCli } from '../../../../server/src/options.js';

const variables = { userHome: '/home/me', env: { TOKEN: 't0k' }, pathSeparator: '/' };
const user = (servers: unknown): WrapSource => ({ label: 'user settings (mcpTasks.wrap)', fromWorkspace: false, folder: '/ws', servers });
const file = (servers: unknown, folder = '/ws'): WrapSource => ({ label: `${folder}/.vscode/mcp-tasks.json`, fromWorkspace: true, folder, servers });

describe('wrapped servers (mcpTasks.wrap and .vscode/mcp-tasks.json "wrap")', () => {
    it('merges the setting and the trusted files into mcp.json servers the server parses the same', () => {
        const merged = mergeWrap(
            [
                user({ everything: { type: 'stdio', command: 'node', args: ['${userHome}/srv/index.js', 'stdio'], cwd: 'tools', sync: ['echo'] }, remote: { type: 'http', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } } }),
                file({ local: { command: '${workspaceFolder}${/}bin${pathSeparator}srv', env: { HOME_DIR: '${userHome}', MISSING: '${env:NOPE}' } } }, '/ws2'),
            ],
            true,
            variables,
        );
        assert.deepEqual(merged.problems, []);
        assert.deepEqual([...merged.origins.keys()], ['everything', 'remote', 'local']);
        const servers = JSON.parse(merged.text!).servers;
        assert.deepEqual(servers.everything, { type: 'stdio', command: 'node', args: ['/home/me/srv/index.js', 'stdio'], cwd: '/ws/tools', sync: ['echo'] });
        assert.equal(servers.remote.headers.Authorization, 'Bearer t0k');
        assert.deepEqual([servers.local.command, servers.local.env], ['/ws2/bin/srv', { HOME_DIR: '/home/me', MISSING: '' }]);

        // What the extension hands the server (--wrap-config FILE) reads back as the same servers.
        const dir = mkdtempSync(join(tmpdir(), 'wrap-'));
        try {
            const wrapFile = join(dir, 'wrap.json');
            writeFileSync(wrapFile, merged.text!);
            const options = parseCli(limitArgs({ defaultTtl: '1h', maxTtl: '24h', maxTasksPerClient: 100, logLevel: 'info', taskTools: true, demoTools: true, abandonAfter: 'off', stoppedWaiting: 'cancel', wrapFile }), {});
            assert.deepEqual(
                options.wrap.map(spec => [spec.name, spec.kind, spec.sync]),
                [
                    ['everything', 'stdio', ['echo']],
                    ['remote', 'http', []],
                    ['local', 'stdio', []],
                ],
            );
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it('leaves out a wrong entry with its name and what is wrong; the others are served', () => {
        const merged = mergeWrap(
            [
                user({
                    good: { command: 'srv' },
                    nothing: { type: 'stdio' },
                    sse: { type: 'sse', url: 'http://x/sse' },
                    badArgs: { command: 'srv', args: 'one string' },
                    asks: { command: 'srv', args: ['${input:token}'] },
                    fromFile: { command: 'srv', envFile: '${workspaceFolder}/.env' },
                    'bad name': { command: 'srv' },
                    notObject: 'srv --stdio',
                }),
            ],
            true,
            variables,
        );
        assert.deepEqual([...merged.origins.keys()], ['good']);
        const lines = merged.problems.map(problemText);
        const expected = [
            /server "nothing": needs "command" \(a program speaking MCP on stdio\) or "url"/,
            /server "sse": type "sse" is not supported; use "stdio" \(command\) or "http" \(url\)/,
            /server "badArgs": args must be a list of strings/,
            /server "asks": \$\{input:token\} is not supported here/,
            /server "fromFile": "envFile" is not supported here: put the variables in "env" instead/,
            /server "bad name": use 1 to 64 letters/,
            /server "notObject": must be an object with "command"/,
        ];
        assert.equal(lines.length, expected.length, lines.join('\n'));
        lines.forEach((line, i) => {
            assert.match(line, /^user settings \(mcpTasks\.wrap\): /);
            assert.match(line, expected[i]!);
        });
    });

    it("serves a workspace file's servers only in a trusted workspace; a later entry of a name replaces an earlier one", () => {
        const sources = [user({ srv: { command: 'from-user' } }), file({ srv: { command: 'from-file' }, other: { command: 'x' } })];
        const untrusted = mergeWrap(sources, false, variables);
        assert.equal(JSON.parse(untrusted.text!).servers.srv.command, 'from-user');
        assert.deepEqual([...untrusted.origins.keys()], ['srv']);
        assert.match(problemText(untrusted.problems[0]!), /mcp-tasks\.json: 2 server\(s\) wait for workspace trust/);
        const trusted = mergeWrap(sources, true, variables);
        assert.equal(JSON.parse(trusted.text!).servers.srv.command, 'from-file');
        assert.match(problemText(trusted.problems[0]!), /server "srv": replaces the server of that name from user settings/);
    });

    it('wraps nothing when nothing is declared, and says so for a setting of the wrong shape', () => {
        assert.equal(mergeWrap([user(undefined), user({}), file(undefined)], true, variables).text, undefined);
        const wrong = mergeWrap([user([{ command: 'srv' }])], true, variables);
        assert.equal(wrong.text, undefined);
        assert.match(problemText(wrong.problems[0]!), /must be an object of servers, as in mcp.json/);
    });

    it('expands ${workspaceFolder} only with a folder open', () => {
        assert.equal(expandVariables('${workspaceFolder}/x', '/ws', variables), '/ws/x');
        assert.throws(() => expandVariables('${workspaceFolder}/x', undefined, variables), /\$\{workspaceFolder\} needs an open workspace folder/);
        assert.equal(expandVariables('plain $HOME {x}', undefined, variables), 'plain $HOME {x}');
    });
});
