/** Each OS's implementation, driven here by an injected platform: shells, program lookup, hidden windows, data folders, private folders. */
import assert from 'node:assert/strict';
import type { Stats } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildArgv, inputSchemaOf } from '../../../../server/src/commands/argv.js';
import { parseCommandsFile } from '../../../../server/src/commands/spec.js';
import { cmdQuote } from '../../../../server/src/platform/cmdLine.js';
import { platformFor } from '../../../../server/src/platform/index.js';
import { makeWindowsPlatform, resolveProgram } from '../../../../server/src/platform/windows.js';
import { defaultDataDir } from '../../../../server/src/util/dataDir.js';

const linux = platformFor('linux');
const darwin = platformFor('darwin');
const WIN_ENV = { Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs', PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\system32\\cmd.exe' };
const WIN_FILES = new Set(['C:\\Program Files\\nodejs\\node.exe', 'C:\\Program Files\\nodejs\\npm.cmd', 'C:\\Windows\\system32\\cmd.exe']);
const windows = makeWindowsPlatform({ exists: path => WIN_FILES.has(path) });

const [viaShell, npmTest] = parseCommandsFile(
    JSON.stringify({
        tools: [
            { name: 'shell', description: 'd', command: ['echo', '{text}'], shell: true, parameters: { text: { type: 'string', description: 'any' } } },
            { name: 'npmTest', description: 'd', command: ['npm', 'test', '--', '{filter}'], parameters: { filter: { type: 'string', description: 'any' } } },
        ],
    }),
    '/project/commands.json',
);

describe('platform: which implementation', () => {
    it('names its OS, and an OS it does not know runs as Linux', () => {
        assert.equal(platformFor('win32').os, 'win32');
        assert.equal(darwin.os, 'darwin');
        assert.equal(platformFor('freebsd').os, 'linux');
    });

    it('data folders: XDG state on Linux (a relative XDG_STATE_HOME ignored), Application Support on macOS, LOCALAPPDATA on Windows', () => {
        assert.equal(defaultDataDir({}, linux, '/home/u'), '/home/u/.local/state/mcp-tasks');
        assert.equal(defaultDataDir({ XDG_STATE_HOME: '/s' }, linux, '/home/u'), '/s/mcp-tasks');
        assert.equal(defaultDataDir({ XDG_STATE_HOME: 'rel' }, linux, '/home/u'), '/home/u/.local/state/mcp-tasks');
        assert.equal(defaultDataDir({}, darwin, '/Users/u'), '/Users/u/Library/Application Support/mcp-tasks');
        assert.equal(defaultDataDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, windows, 'C:\\Users\\u'), 'C:\\Users\\u\\AppData\\Local\\mcp-tasks');
        assert.equal(defaultDataDir({}, windows, 'C:\\Users\\u'), 'C:\\Users\\u\\AppData\\Local\\mcp-tasks');
    });

    it('a secret folder must be 0700 and this user’s on POSIX; Windows leaves it to the profile’s ACL', () => {
        const uid = process.getuid?.() ?? 0;
        const stat = (mode: number, owner = uid) => ({ mode, uid: owner }) as Stats;
        assert.equal(linux.privateDirProblem(stat(0o40700)), undefined);
        assert.match(linux.privateDirProblem(stat(0o40755)) ?? '', /private directory/);
        assert.match(darwin.privateDirProblem(stat(0o40700, uid + 1)) ?? '', /owned by this user/);
        assert.equal(windows.privateDirProblem(stat(0o40777, uid + 1)), undefined);
    });
});

describe('platform: POSIX spawning', () => {
    it('shell: true is sh -c with each parameter a positional $1, in a process group of its own', () => {
        assert.deepEqual(buildArgv(viaShell!, { text: '$(reboot)' }, linux), ['/bin/sh', '-c', 'echo', 'shell', '$(reboot)']);
        assert.deepEqual(linux.spawnPlan(['npm', 'test'], {}), { file: 'npm', args: ['test'], options: { detached: true } });
        assert.equal(inputSchemaOf(viaShell!, darwin).safeParse({ text: '%PATH% "x" !y!' }).success, true, 'sh carries any value as $1');
    });
});

describe('platform: Windows spawning', () => {
    it('a bare name resolves as cmd.exe would by PATH and PATHEXT (not the working directory); a batch file runs through cmd.exe', () => {
        assert.equal(resolveProgram('node', WIN_ENV, path => WIN_FILES.has(path)), 'C:\\Program Files\\nodejs\\node.exe');
        assert.equal(resolveProgram('npm', WIN_ENV, path => WIN_FILES.has(path)), 'C:\\Program Files\\nodejs\\npm.cmd');
        assert.equal(resolveProgram('missing', WIN_ENV, path => WIN_FILES.has(path)), undefined);
        assert.equal(resolveProgram('.\\npm', WIN_ENV, () => true), undefined, 'a path is not looked up');
        const node = windows.spawnPlan(['node', 'a.js'], WIN_ENV);
        assert.deepEqual(node, { file: 'C:\\Program Files\\nodejs\\node.exe', args: ['a.js'], options: { detached: false, windowsHide: true } });
        const npm = windows.spawnPlan(buildArgv(npmTest!, { filter: 'a & b' }, windows), WIN_ENV);
        assert.equal(npm.file, WIN_ENV.ComSpec);
        assert.deepEqual(npm.args, ['/d', '/s', '/c', '""C:\\Program Files\\nodejs\\npm.cmd" "test" "--" "a & b""']);
        assert.deepEqual(npm.options, { detached: false, windowsHide: true, windowsVerbatimArguments: true });
    });

    it('a value cmd.exe would read as its own syntax is refused for a batch file, never run', () => {
        for (const value of ['%PATH%', 'a"b', '!x!', 'a\r\nb']) {
            assert.throws(() => windows.spawnPlan(['npm', 'test', value], WIN_ENV), /cannot be passed through cmd\.exe safely/, value);
        }
    });

    it('shell: true runs in cmd.exe with each parameter appended in quotes; its schema refuses what cmd.exe cannot carry', () => {
        const argv = buildArgv(viaShell!, { text: 'a & del /q *' }, windows);
        assert.deepEqual(argv, ['cmd.exe', '/d', '/s', '/c', 'echo "a & del /q *"']);
        assert.deepEqual(windows.spawnPlan(argv, WIN_ENV).args, ['/d', '/s', '/c', '"echo "a & del /q *""']);
        const refused = inputSchemaOf(viaShell!, windows).safeParse({ text: '%USERPROFILE%' });
        assert.equal(refused.success, false);
        assert.match(JSON.stringify(refused.error?.issues), /cannot be passed through cmd\.exe safely/);
    });

    it('fuzzed: every value the Windows schema accepts is one double-quoted token cmd.exe leaves alone', () => {
        const schema = inputSchemaOf(viaShell!, windows);
        fc.assert(
            fc.property(fc.oneof(fc.string(), fc.constantFrom('& calc', '| type x', '^"', '%a%', '(x)', '>nul', 'a\\', 'a\\"')), text => {
                if (!schema.safeParse({ text }).success) {
                    assert.match(text, /["%!\r\n\0]|^-/);
                    return;
                }
                const line = buildArgv(viaShell!, { text }, windows)[4]!;
                const quoted = line.slice('echo '.length);
                assert.equal(quoted, cmdQuote(text));
                // Inside: no quote to end the quoting, nothing to expand, no line break.
                assert.doesNotMatch(quoted.slice(1, -1), /["%!\r\n]/);
            }),
        );
    });
});
