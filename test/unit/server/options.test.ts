import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCli, parseDuration } from '../../../server/src/options.js';

describe('options', () => {
    it('parses durations with and without units', () => {
        assert.equal(parseDuration('1500', '--x'), 1500);
        assert.equal(parseDuration('300ms', '--x'), 300);
        assert.equal(parseDuration('90s', '--x'), 90_000);
        assert.equal(parseDuration('1.5s', '--x'), 1500);
        assert.equal(parseDuration('30m', '--x'), 1_800_000);
        assert.equal(parseDuration('1h', '--x'), 3_600_000);
        assert.equal(parseDuration(' 2s ', '--x'), 2000);
        for (const bad of ['', 's', '-1s', '5 days', '1d', '1.s', 'abc', '2S']) {
            assert.throws(() => parseDuration(bad, '--max-ttl'), (err: Error) => err.message.startsWith(`--max-ttl: "${bad}" is not a duration`), bad);
        }
    });

    it('has documented defaults', () => {
        const options = parseCli([], {});
        assert.equal(options.transport, 'stdio');
        assert.equal(options.host, '127.0.0.1');
        assert.equal(options.port, 8080);
        assert.deepEqual(options.tokens, []);
        assert.equal(options.defaultTtlMs, 3_600_000);
        assert.equal(options.maxTtlMs, 86_400_000);
        assert.equal(options.maxTasksPerClient, 1000);
        assert.equal(options.pollIntervalMs, 1000);
        assert.equal(options.sessionIdleMs, 1_800_000);
        assert.equal(options.bodyLimitBytes, 4 * 1024 * 1024);
        assert.equal(options.allowRemote, false);
        assert.equal(options.logLevel, 'info');
        assert.equal(options.demoTools, true);
        assert.equal(options.taskTools, true);
    });

    it('reads every flag', () => {
        const options = parseCli(
            [
                '--http',
                '--host',
                '0.0.0.0',
                '--port',
                '0',
                '--token',
                'T',
                '--owner-token',
                'O',
                '--allow-remote',
                '--session-idle-timeout',
                '300ms',
                '--body-limit',
                '2048',
                '--default-ttl',
                '2s',
                '--max-ttl',
                '5s',
                '--max-tasks-per-client',
                '3',
                '--poll-interval',
                '250',
                '--log-level',
                'debug',
                '--no-demo-tools',
            ],
            {},
        );
        const expected = {
            transport: 'http',
            host: '0.0.0.0',
            port: 0,
            tokens: ['T'],
            ownerToken: 'O',
            allowRemote: true,
            sessionIdleMs: 300,
            bodyLimitBytes: 2048,
            defaultTtlMs: 2000,
            maxTtlMs: 5000,
            maxTasksPerClient: 3,
            pollIntervalMs: 250,
            logLevel: 'debug',
            demoTools: false,
            help: false,
            version: false,
        };
        const picked = Object.fromEntries(Object.keys(expected).map(key => [key, options[key as keyof typeof options]]));
        assert.deepEqual(picked, expected);
        assert.equal(parseCli(['-h'], {}).help, true);
    });

    it('takes tokens from the environment, flags first', () => {
        assert.deepEqual(parseCli([], { MCP_TASKS_TOKEN: 'env-t' }).tokens, ['env-t']);
        assert.deepEqual(parseCli(['--token', 'flag-t'], { MCP_TASKS_TOKEN: 'env-t' }).tokens, ['flag-t']);
        assert.equal(parseCli([], { MCP_TASKS_OWNER_TOKEN: 'env-o' }).ownerToken, 'env-o');
        assert.deepEqual(parseCli([], { MCP_TASKS_TOKEN: '' }).tokens, []);
    });

    it('rejects bad command lines with a message naming the problem', () => {
        const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
            [['--bogus'], {}, /bogus/],
            [['extra'], {}, /extra/],
            [['--stdio', '--http'], {}, /Choose one transport/],
            [['--port', '65536'], {}, /--port: must be at most 65535/],
            [['--port', '-1'], {}, /--port/],
            [['--port', 'http'], {}, /--port: "http" must be a whole number/],
            [['--log-level', 'verbose'], {}, /--log-level: "verbose" must be one of error, warn, info, debug/],
            [['--token', 'same', '--owner-token', 'same'], {}, /--owner-token must differ from --token/],
            [['--owner-token', 'same'], { MCP_TASKS_TOKEN: 'same' }, /--owner-token must differ from --token/],
            [['--allow-remote'], {}, /--allow-remote requires --token/],
            [['--default-ttl', '2h', '--max-ttl', '1h'], {}, /--default-ttl must not exceed --max-ttl/],
            [['--body-limit', '1023'], {}, /--body-limit: "1023" must be a whole number ≥ 1024/],
            [['--max-tasks-per-client', '0'], {}, /--max-tasks-per-client/],
            [['--session-idle-timeout', 'soon'], {}, /--session-idle-timeout: "soon" is not a duration/],
            [['--poll-interval', '1x'], {}, /--poll-interval/],
            [['--max-ttl'], {}, /max-ttl/],
        ];
        for (const [argv, env, reason] of cases) {
            assert.throws(() => parseCli(argv, env), (err: Error) => reason.test(err.message), argv.join(' '));
        }
    });
});
