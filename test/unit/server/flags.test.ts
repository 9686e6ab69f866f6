// The flag table's parser: every flag has its MCP_TASKS_ variable and a flag beats it; the shapes
// later flags need (repeatable, `--flag -- program args…`) read as documented.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flagsMarkdown, helpText } from '../../../server/src/flags/render.js';
import { editDistance, envName, flagArgs, parseFlags, type Flag } from '../../../server/src/flags/spec.js';
import { FLAGS } from '../../../server/src/flags/table.js';
import { parseCli } from '../../../server/src/options.js';

/** A value each flag accepts that is not its default, as text and as parsed. */
function sample(flag: Flag): [text: string, value: unknown] {
    switch (flag.type) {
        case 'switch':
            return ['1', true];
        case 'off':
            return ['true', false];
        case 'list': {
            // Each list's own separator (--wrap-header splits on newlines: a header value may hold commas) and duplicate rule.
            const sep = flag.separator ?? ',';
            return [`a${sep} b${sep}a`, flag.keepDuplicates ? ['a', 'b', 'a'] : ['a', 'b']];
        }
        case 'command':
            return ['["prog","--x"]', ['prog', '--x']];
        case 'duration':
            return ['90s', 90_000];
        case 'count':
            return [String(flag.default + 1), flag.default + 1];
        case 'choice': {
            const other = flag.choices.find(choice => choice !== flag.default)!;
            return [other, other];
        }
        case 'string':
            return flag.name === 'store' ? ['redis://h:1', 'redis://h:1'] : ['value-1', 'value-1'];
    }
}

describe('flag table', () => {
    it('names every flag once, with one variable each (MCP_TASKS_<NAME>) except --help and --version', () => {
        assert.equal(new Set(FLAGS.map(flag => flag.name)).size, FLAGS.length);
        assert.equal(new Set(FLAGS.map(flag => flag.key)).size, FLAGS.length);
        assert.deepEqual(FLAGS.filter(flag => !envName(flag)).map(flag => flag.name), ['version', 'help']);
        assert.equal(envName(FLAGS.find(flag => flag.name === 'max-retained-bytes-per-client')!), 'MCP_TASKS_MAX_RETAINED_BYTES_PER_CLIENT');
    });

    it('reads each flag from its variable, and the command line beats it', () => {
        for (const flag of FLAGS.filter(f => envName(f))) {
            const [text, value] = sample(flag);
            const base = flag.name === 'owner-announce' ? { MCP_TASKS_OWNER_TOKEN: 'o' } : {};
            const fromEnv = parseFlags(FLAGS, [], { ...base, [envName(flag)!]: text });
            assert.deepEqual((fromEnv.values as Record<string, unknown>)[flag.key], value, envName(flag));
            assert.ok(fromEnv.given.has(flag.name));
            const [argv, expected] = other(flag, value);
            const fromArgv = parseFlags(FLAGS, argv, { ...base, [envName(flag)!]: flag.type === 'switch' || flag.type === 'off' ? '0' : text });
            assert.deepEqual((fromArgv.values as Record<string, unknown>)[flag.key], expected, `--${flag.name} beats ${envName(flag)}`);
        }
    });

    it('keeps the five variables of earlier releases', () => {
        const options = parseCli(['--http'], {
            MCP_TASKS_TOKEN: 'c1,c2',
            MCP_TASKS_OWNER_TOKEN: 'o',
            MCP_TASKS_OWNER_ANNOUNCE: '/tmp/x',
            MCP_TASKS_STORE: 'redis://h:1/2',
            MCP_TASKS_STORE_PREFIX: 'p:',
        });
        assert.deepEqual([options.tokens, options.ownerToken, options.ownerAnnounce, options.storeUrl, options.storePrefix], [['c1', 'c2'], 'o', '/tmp/x', 'redis://h:1/2', 'p:']);
    });

    it('takes the transport from the command line over both variables, and refuses two', () => {
        assert.equal(parseCli([], { MCP_TASKS_HTTP: '1' }).transport, 'http');
        assert.equal(parseCli(['--stdio'], { MCP_TASKS_HTTP: '1' }).transport, 'stdio');
        assert.equal(parseCli([], { MCP_TASKS_HTTP: '0' }).transport, 'stdio');
        assert.throws(() => parseCli([], { MCP_TASKS_HTTP: '1', MCP_TASKS_STDIO: '1' }), /Choose one transport: --stdio or MCP_TASKS_HTTP|Choose one transport: MCP_TASKS_STDIO or MCP_TASKS_HTTP/);
        assert.throws(() => parseCli(['--stdio', '--http'], {}), /Choose one transport: --stdio or --http/);
    });

    it("names the variable when its value is wrong, and reads an empty one as unset", () => {
        const cases: [NodeJS.ProcessEnv, RegExp][] = [
            [{ MCP_TASKS_PORT: 'eighty' }, /^MCP_TASKS_PORT: "eighty" must be a whole number/],
            [{ MCP_TASKS_NO_DEMO_TOOLS: 'maybe' }, /^MCP_TASKS_NO_DEMO_TOOLS: "maybe" must be 1 or 0/],
            [{ MCP_TASKS_DEFAULT_TTL: '1d' }, /^MCP_TASKS_DEFAULT_TTL: "1d" is not a duration/],
            [{ MCP_TASKS_LOG_LEVEL: 'loud' }, /^MCP_TASKS_LOG_LEVEL: "loud" must be one of error, warn, info, debug/],
            [{ MCP_TASKS_STORE: 'mysql://h' }, /^MCP_TASKS_STORE: .* must be memory, sqlite or redis/],
        ];
        for (const [env, reason] of cases) {
            assert.throws(() => parseCli([], env), (err: Error) => reason.test(err.message), JSON.stringify(env));
        }
        assert.equal(parseCli([], { MCP_TASKS_PORT: '' }).port, 8080);
        assert.equal(parseCli([], { MCP_TASKS_ABANDON_AFTER: 'off' }).abandonAfterMs, 0);
    });
});

describe('flag shapes for later flags', () => {
    const table = [
        { name: 'wrap', key: 'wrap', type: 'command', group: 'Other', help: 'Forward to this server.', oneOf: 'wrapped' },
        { name: 'wrap-url', key: 'wrapUrl', type: 'string', arg: 'URL', group: 'Other', help: 'Forward to this URL.', oneOf: 'wrapped' },
        { name: 'wrap-header', key: 'wrapHeaders', type: 'list', arg: 'NAME:VALUE', separator: '\n', keepDuplicates: true, group: 'Other', help: 'Send this header.' },
        { name: 'quiet', key: 'quiet', type: 'switch', group: 'Other', help: 'Say less.' },
    ] as const satisfies readonly Flag[];

    it('--wrap -- program args…: everything after -- is the program, flags included', () => {
        const { values } = parseFlags(table, ['--quiet', '--wrap', '--', 'npx', '-y', 'srv', '--stdio', '--quiet'], {});
        assert.deepEqual(values.wrap, ['npx', '-y', 'srv', '--stdio', '--quiet']);
        assert.equal(values.quiet, true);
        assert.deepEqual(parseFlags(table, [], { MCP_TASKS_WRAP: '["node","s.js"]' }).values.wrap, ['node', 's.js']);
        assert.deepEqual(parseFlags(table, [], {}).values.wrap, []);
        assert.deepEqual(parseFlags(table, flagArgs(table[0], ['a', '-b']), {}).values.wrap, ['a', '-b']);
    });

    it('refuses -- without the flag, the flag without --, and a program missing after it', () => {
        assert.throws(() => parseFlags(table, ['--', 'npx'], {}), /"--" must follow --wrap/);
        assert.throws(() => parseFlags(table, ['--wrap', 'npx'], {}), /unexpected argument "npx" \(a program to run goes after --wrap --\)/);
        assert.throws(() => parseFlags(table, ['--wrap'], {}), /--wrap: write the program after "--"/);
        assert.throws(() => parseFlags(table, ['--wrap', '--'], {}), /needs a program to run/);
        assert.throws(() => parseFlags(table, [], { MCP_TASKS_WRAP: 'npx srv' }), /MCP_TASKS_WRAP: write the program .* as a JSON array/);
        assert.throws(() => parseFlags(table, ['--wrap-url', 'http://x', '--wrap', '--', 'a'], {}), /Choose one wrapped: --wrap or --wrap-url|Choose one wrapped: --wrap-url or --wrap/);
    });

    it('--help and the docs table write them the way they are typed, under their group, with their variables', () => {
        const usage = helpText(table, 'Usage: x', 'end');
        assert.match(usage, /^Other:\n {2}--wrap -- PROGRAM ARG… +Forward to this server\.\n {31}\(env MCP_TASKS_WRAP, a JSON array\)\n {2}--wrap-url URL /m);
        assert.match(usage, /^ {2}--wrap-header NAME:VALUE +Send this header\.\n {31}\(env MCP_TASKS_WRAP_HEADER\)$/m);
        assert.ok(usage.startsWith('Usage: x\n') && usage.endsWith('end'));
        const rows = flagsMarkdown(table).split('\n');
        assert.equal(rows[2], '| `--wrap -- PROGRAM ARG…` | `MCP_TASKS_WRAP` |  | Forward to this server. |');
        assert.equal(rows[5], '| `--quiet` | `MCP_TASKS_QUIET` | off | Say less. |');
    });

    it('a repeatable flag keeps every occurrence, and its variable splits on the separator', () => {
        assert.deepEqual(parseFlags(table, ['--wrap-header', 'A: 1', '--wrap-header=B: 2, 3', '--wrap-header', 'A: 1'], {}).values.wrapHeaders, ['A: 1', 'B: 2, 3', 'A: 1']);
        assert.deepEqual(parseFlags(table, [], { MCP_TASKS_WRAP_HEADER: 'A: 1, 2\nB: 3' }).values.wrapHeaders, ['A: 1, 2', 'B: 3']);
        assert.deepEqual(parseFlags(table, ['--wrap-header', 'C: 4'], { MCP_TASKS_WRAP_HEADER: 'A: 1' }).values.wrapHeaders, ['C: 4']);
    });

    it('an unknown flag names the one meant when it is a typo or two away, or what to type instead', () => {
        const refused = (args: string[]) => {
            try {
                parseCli(args);
            } catch (err) {
                return (err as Error).message;
            }
            return 'accepted';
        };
        assert.equal(refused(['--stdoi']), 'unknown flag --stdoi; did you mean --stdio?');
        assert.equal(refused(['--comands', 'x.json']), 'unknown flag --comands; did you mean --commands?');
        assert.equal(refused(['--hhtp']), 'unknown flag --hhtp; did you mean --http?');
        assert.equal(refused(['--redis', 'redis://h:1']), 'unknown flag --redis: use --store redis://HOST:PORT');
        // No guess from a different word.
        assert.equal(refused(['--bogus']), 'unknown flag --bogus');
        assert.equal(editDistance('stoid', 'stdio'), 2);
        assert.equal(editDistance('stdoi', 'stdio'), 1, 'two neighbours swapped are one edit');
    });
});

/** A command line giving `flag` a value other than `envValue`, and that value. */
function other(flag: Flag, envValue: unknown): [argv: string[], value: unknown] {
    switch (flag.type) {
        case 'switch':
            return [[`--${flag.name}`], true];
        case 'off':
            return [[`--${flag.name}`], false];
        case 'list':
        case 'command':
            return [flagArgs(flag, ['z']), ['z']];
        case 'duration':
            return [flagArgs(flag, '7s'), 7000];
        case 'count':
            return [flagArgs(flag, flag.default + 2), flag.default + 2];
        case 'choice': {
            const choice = flag.choices.find(c => c !== envValue)!;
            return [flagArgs(flag, choice), choice];
        }
        case 'string':
            return flag.name === 'store' ? [flagArgs(flag, 'redis://k:2'), 'redis://k:2'] : [flagArgs(flag, 'other-1'), 'other-1'];
    }
}
