/** A strict commands file and confinement that holds: unknown keys, inherited names, options pinned or refused, paths resolved through links. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../../../server/src/util/clock.js';
import { buildArgv, inputSchemaOf } from '../../../../server/src/commands/argv.js';
import { CommandsFile } from '../../../../server/src/commands/commandsFile.js';
import { createLogger } from '../../../../server/src/util/log.js';
import { parseCommandsFile, type CommandSpec } from '../../../../server/src/commands/spec.js';
import { platformFor } from '../../../../server/src/platform/index.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-spec-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'cmd-outside-')));
after(() => [dir, outside].forEach(path => rmSync(path, { recursive: true, force: true })));
const FILE = join(dir, 'commands.json');

const parse = (...tools: object[]) => parseCommandsFile(JSON.stringify({ tools }), FILE);
const one = (tool: object): CommandSpec => parse({ name: 'x', description: 'd', ...tool })[0]!;
const accepts = (spec: CommandSpec, args: object) => inputSchemaOf(spec).safeParse(args).success;

describe('commands file: strict', () => {
    it('refuses an unknown key, naming the entry and suggesting the key meant', () => {
        assert.throws(() => parse({ name: 'build', description: 'd', command: ['make'], timeout: 5 }), {
            message: `${FILE}: tools[0] (build): unknown key timeout; did you mean timeoutMs?`,
        });
        assert.throws(() => parse({ name: 'b', description: 'd', command: ['make'], killgrace: 5 }), /tools\[0\] \(b\): unknown key killgrace; did you mean killGraceMs\?/);
        assert.throws(
            () => parse({ name: 'b', description: 'd', command: ['p', '{n}'], parameters: { n: { type: 'string', description: 'n', optinal: true } } }),
            /tools\[0\] \(b\): parameters\.n: unknown key optinal; did you mean optional\?/,
        );
        assert.throws(() => parseCommandsFile(JSON.stringify({ tools: [], root: ['.'] }), FILE), /commands\.json: unknown key root; did you mean roots\?/);
        assert.throws(() => parse({ name: 'b', description: 'd', command: ['p'], zzzzzz: 1 }), /unknown key zzzzzz; known keys: name, title/);
    });

    it('a placeholder must name a declared parameter: inherited names such as {constructor} or {toString} are not parameters', () => {
        for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
            assert.throws(() => one({ command: ['p', `{${name}}`] }), new RegExp(`command\\[1\\]: \\{${name}\\} names no declared parameter`), name);
        }
        const declared = one({ command: ['p', '{constructor}'], parameters: { constructor: { type: 'string', description: 'a real one' } } });
        assert.deepEqual(buildArgv(declared, { constructor: 'value' }), ['p', 'value']);
    });
});

describe('commands file: loading', () => {
    it('an entry whose cwd does not exist is refused when the file loads, naming entry and field; the others serve', () => {
        const file = join(dir, 'missing-cwd.json');
        writeFileSync(
            file,
            JSON.stringify({
                tools: [
                    { name: 'fine', description: 'd', command: [process.execPath, '-e', ''] },
                    { name: 'lost', description: 'd', command: [process.execPath, '-e', ''], cwd: 'no-such-folder' },
                ],
            }),
        );
        const lines: string[] = [];
        const commands = new CommandsFile({ file, logDir: dir, clock: systemClock, log: createLogger('info', line => lines.push(line)), onChange: () => undefined });
        assert.deepEqual(
            commands.tools.map(tool => tool.name),
            ['fine'],
        );
        assert.ok(lines.some(line => line.includes(`tools[1] (lost): cwd: ${join(dir, 'no-such-folder')} is not a folder that exists`)), lines.join('\n'));
    });
});

describe('commands file: a cwd confined by where it really is', () => {
    const roots = join(dir, 'roots');
    mkdirSync(join(roots, 'real'), { recursive: true });
    symlinkSync(outside, join(roots, 'away'));
    symlinkSync(join(roots, 'real'), join(roots, 'near'));
    const withCwd = (cwd: string) => () => parseCommandsFile(JSON.stringify({ roots: ['roots'], tools: [{ name: 'x', description: 'd', command: ['p'], cwd }] }), FILE);

    it('a link inside the roots that leads outside is refused when the file loads, naming the entry, cwd and where the link leads', () => {
        assert.throws(withCwd('roots/away'), {
            message: `${FILE}: tools[0] (x): cwd: ${join(roots, 'away')} really is ${outside} (symbolic links followed), outside the declared roots (${roots})`,
        });
        assert.throws(withCwd('roots/away/not-yet'), /cwd: .*away\/not-yet really is .*not-yet \(symbolic links followed\), outside the declared roots/, 'a folder still to be made, through the link');
    });

    it('a link that stays inside the roots, and a folder still to be made inside, are accepted', () => {
        assert.equal(withCwd('roots/near')()[0]!.cwd, join(roots, 'near'));
        assert.equal(withCwd('roots/real/not-yet')()[0]!.cwd, join(roots, 'real', 'not-yet'));
    });
});

describe('commands file: options', () => {
    it('a string filling a whole element cannot start with "-" unless declared; after "--" or pinned to its option it can', () => {
        const bare = one({ command: ['grep', '{pattern}', 'file'], parameters: { pattern: { type: 'string', description: 'p' } } });
        assert.equal(accepts(bare, { pattern: '--inspect=0.0.0.0:9229' }), false);
        assert.equal(accepts(bare, { pattern: 'fine-value' }), true);
        const declared = one({ command: ['grep', '-e', '{pattern}'], parameters: { pattern: { type: 'string', description: 'p', allowLeadingDash: true } } });
        assert.equal(accepts(declared, { pattern: '-x' }), true);
        const afterEnd = one({ command: ['grep', '--', '{pattern}'], parameters: { pattern: { type: 'string', description: 'p' } } });
        assert.equal(accepts(afterEnd, { pattern: '-x' }), true);
        const pinned = one({ command: ['vitest', '--testNamePattern={pattern}'], parameters: { pattern: { type: 'string', description: 'p' } } });
        assert.equal(accepts(pinned, { pattern: '--fail-fast' }), true);
        assert.deepEqual(buildArgv(pinned, { pattern: '--fail-fast' }), ['vitest', '--testNamePattern=--fail-fast']);
        const optional = one({ command: ['p', '--match={m}', 'end'], parameters: { m: { type: 'string', description: 'm', optional: true } } });
        assert.deepEqual(buildArgv(optional, {}), ['p', 'end'], 'an absent optional value drops its whole element');
        assert.throws(() => one({ command: ['p', '{n}'], parameters: { n: { type: 'number', description: 'n', allowLeadingDash: false } } }), /allowLeadingDash: only for a string/);
    });

    it('a boolean with a flag adds it when true and drops it otherwise (absent is false)', () => {
        const spec = one({ command: ['npm', 'test', '{coverage}', '--', 'x'], parameters: { coverage: { type: 'boolean', description: 'c', flag: '--coverage' } } });
        assert.deepEqual(buildArgv(spec, { coverage: true }), ['npm', 'test', '--coverage', '--', 'x']);
        assert.deepEqual(buildArgv(spec, { coverage: false }), ['npm', 'test', '--', 'x']);
        assert.equal(accepts(spec, {}), true);
        assert.deepEqual(buildArgv(spec, {}), ['npm', 'test', '--', 'x']);
        assert.throws(() => one({ command: ['p', '{v}'], parameters: { v: { type: 'string', description: 'v', flag: '--v' } } }), /flag: only for a boolean/);
        assert.throws(() => one({ command: ['p', '--x={v}'], parameters: { v: { type: 'boolean', description: 'v', flag: '--v' } } }), /must be a whole argv element/);
    });

    it('the program cannot be, or hold, a parameter', () => {
        assert.throws(() => one({ command: ['./bin/{tool}'], parameters: { tool: { type: 'string', description: 't' } } }), /command\[0\]: the program cannot be a parameter/);
        // A shell script is never filled in, so its own ${VAR} is the shell's.
        assert.deepEqual(buildArgv(one({ command: ['echo "${HOME}" "$1"', '{t}'], shell: true, parameters: { t: { type: 'string', description: 't' } } }), { t: 'a' }, platformFor('linux')), [
            '/bin/sh',
            '-c',
            'echo "${HOME}" "$1"',
            'x',
            'a',
        ]);
    });
});

describe('path parameters: confinement that holds', () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'a.ts'), '');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(outside, 'deep'));
    symlinkSync(outside, join(dir, 'out'));
    symlinkSync(join(outside, 'deep'), join(dir, 'deeplink'));
    symlinkSync(join(dir, 'src'), join(dir, 'srclink'));
    symlinkSync(join(outside, 'not-yet.txt'), join(dir, 'dangling'));
    const spec = one({ command: ['cat', '{file}'], parameters: { file: { type: 'path', description: 'f' } } });
    const ok = (file: string) => accepts(spec, { file });
    /** Each file (or [file, why]) gets `expected` from the spec. */
    const expectEach = (expected: boolean, files: (string | [string, string])[]) => {
        for (const entry of files) {
            const [file, why] = typeof entry === 'string' ? [entry, entry] : entry;
            assert.equal(ok(file), expected, why);
        }
    };

    it('a symbolic link inside cwd that leads outside is refused, however it is reached', () => {
        expectEach(false, [
            'out/secret.txt',
            'out',
            'src/../out/secret.txt',
            // The kernel reads deeplink/.. as the link target's parent, outside: text alone would say dir.
            'deeplink/../secret.txt',
            ['dangling', 'a dangling link may be created outside'],
            ['out/new-file.txt', 'a file still to be written, through the link'],
        ]);
    });

    it('paths inside, through links that stay inside, and files still to be written are accepted', () => {
        expectEach(true, ['src/a.ts', 'srclink/a.ts', 'src/new.ts', ['./-o', 'a file named -o, written so it is no option']]);
        assert.equal(ok('missing/../src/a.ts'), false, 'through a folder that does not exist: the kernel refuses it too');
    });

    it('a path never starts with "-": it would be an option (sort -o /elsewhere)', () => {
        expectEach(false, ['-o', '--output=x', '-']);
        assert.throws(() => one({ command: ['p', '{f}'], parameters: { f: { type: 'path', description: 'f', allowLeadingDash: true } } }), /allowLeadingDash: only for a string/);
    });
});
