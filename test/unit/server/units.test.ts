import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { parseCli, parseDuration } from '../../../server/src/options.js';
import { RpcError } from '../../../server/src/rpc/errors.js';
import { classify } from '../../../server/src/rpc/messages.js';
import { decodeCursor, encodeCursor } from '../../../server/src/tasks/cursor.js';
import { greetTool } from '../../../server/src/tools/greet.js';
import { parseArguments } from '../../../server/src/tools/registry.js';
import { slowComputeTool } from '../../../server/src/tools/slowCompute.js';
import { defineTool, textResult } from '../../../server/src/tools/types.js';
import { bearerToken, hostAllowed, isLoopbackHost, originAllowed, principalOf, secretMatches } from '../../../server/src/transports/guards.js';

function rpcError(fn: () => unknown, code: number, message?: RegExp): void {
    assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === code && (!message || message.test(err.message)));
}

describe('cursors', () => {
    it('round-trip their sequence number and reject ones not issued', () => {
        for (const seq of [0, 1, 99, 123_456_789]) {
            assert.equal(decodeCursor(encodeCursor(seq)), seq);
        }
        for (const bad of ['', 'garbage', '42', 'c1.', `c1.${Buffer.from('-1').toString('base64url')}`, `c1.${Buffer.from('1e3').toString('base64url')}`, `c2.${Buffer.from('1').toString('base64url')}`]) {
            rpcError(() => decodeCursor(bad), -32602, /Invalid cursor/);
        }
    });
});

describe('classify', () => {
    it('recognises requests, notifications and responses', () => {
        assert.equal(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind, 'request');
        assert.equal(classify({ jsonrpc: '2.0', id: 'abc', method: 'tools/call', params: {} }).kind, 'request');
        assert.equal(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind, 'notification');
        assert.equal(classify({ jsonrpc: '2.0', id: 0, result: {} }).kind, 'response');
        assert.equal(classify({ jsonrpc: '2.0', id: 5, error: { code: -1, message: 'x' } }).kind, 'response');
    });

    it('says why anything else is invalid, keeping a usable id', () => {
        const cases: [unknown, RegExp, unknown][] = [
            [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], /Batch/, null],
            ['ping', /JSON object/, null],
            [null, /JSON object/, null],
            [{ jsonrpc: '1.0', id: 3, method: 'ping' }, /jsonrpc must be "2\.0"/, 3],
            [{ jsonrpc: '2.0', id: 4, method: '' }, /method must be a non-empty string/, 4],
            [{ jsonrpc: '2.0', id: 5, method: 7 }, /method must be a non-empty string/, 5],
            [{ jsonrpc: '2.0', id: 6, method: 'ping', params: [] }, /params must be an object/, 6],
            [{ jsonrpc: '2.0', id: 7, method: 'ping', params: null }, /params must be an object/, 7],
            [{ jsonrpc: '2.0', id: null, method: 'ping' }, /id must be a string or a number/, null],
            [{ jsonrpc: '2.0', id: Number.NaN, method: 'ping' }, /id must be a string or a number/, null],
            [{ jsonrpc: '2.0', result: {} }, /response id/, null],
            [{ jsonrpc: '2.0', id: 8 }, /Not a request, notification or response/, 8],
        ];
        for (const [value, reason, id] of cases) {
            const classified = classify(value);
            assert.equal(classified.kind, 'invalid', JSON.stringify(value));
            if (classified.kind === 'invalid') {
                assert.match(classified.reason, reason);
                assert.equal(classified.id, id, JSON.stringify(value));
            }
        }
    });
});

describe('HTTP guards', () => {
    it('allows only loopback Host headers with the right port', () => {
        for (const host of ['127.0.0.1:8080', 'localhost:8080', 'LocalHost:8080', '[::1]:8080']) {
            assert.equal(hostAllowed(host, 8080), true, host);
        }
        assert.equal(hostAllowed('localhost', 80), true, 'no port means 80');
        for (const host of [undefined, '', 'localhost', 'evil.example:8080', '127.0.0.1:8081', '127.0.0.1.evil.example:8080', 'localhost:8080:1', 'user@localhost:8080', '[::1]']) {
            assert.equal(hostAllowed(host, 8080), false, String(host));
        }
    });

    it('allows a missing Origin and loopback origins only', () => {
        for (const origin of [undefined, 'http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:8080']) {
            assert.equal(originAllowed(origin), true, String(origin));
        }
        for (const origin of ['http://evil.example', 'null', '', 'file://localhost/etc', 'http://localhost.evil.example', 'vscode-webview://abc', 'not a url']) {
            assert.equal(originAllowed(origin), false, origin);
        }
    });

    it('compares secrets exactly, whatever their lengths', () => {
        assert.equal(secretMatches('s3cret', 's3cret'), true);
        assert.equal(secretMatches('s3cret', 's3creT'), false);
        assert.equal(secretMatches('s3cret', 's3cret '), false);
        assert.equal(secretMatches('', 's3cret'), false);
        assert.equal(secretMatches('a'.repeat(1000), 'a'), false);
    });

    it('knows loopback bind addresses, reads bearer tokens and names principals without the token', () => {
        for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
            assert.equal(isLoopbackHost(host), true, host);
        }
        for (const host of ['0.0.0.0', '192.168.1.2', '::', 'example.com']) {
            assert.equal(isLoopbackHost(host), false, host);
        }
        const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as Parameters<typeof bearerToken>[0];
        assert.equal(bearerToken(req('Bearer abc')), 'abc');
        assert.equal(bearerToken(req('bearer  abc ')), 'abc');
        assert.equal(bearerToken(req('Basic abc')), undefined);
        assert.equal(bearerToken(req()), undefined);
        assert.equal(principalOf('tok'), principalOf('tok'));
        assert.notEqual(principalOf('tok'), principalOf('tok2'));
        assert.ok(!principalOf('tok-secret-value').includes('tok-secret-value'));
    });
});

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

describe('parseArguments', () => {
    it('applies defaults and passes valid arguments through', () => {
        assert.deepEqual(parseArguments(slowComputeTool, undefined), { seconds: 3, label: 'default' });
        assert.deepEqual(parseArguments(slowComputeTool, { seconds: 0.5, label: 'x' }), { seconds: 0.5, label: 'x' });
        assert.deepEqual(parseArguments(greetTool, { name: 'Ada' }), { name: 'Ada' });
    });

    it('names each failing field in a -32602', () => {
        rpcError(() => parseArguments(slowComputeTool, { seconds: 'ten' }), -32602, /^Invalid arguments for tool slow_compute: seconds: .*expected number/);
        rpcError(() => parseArguments(slowComputeTool, { seconds: -1 }), -32602, /seconds: /);
        rpcError(() => parseArguments(greetTool, {}), -32602, /greet: name: /);
        try {
            parseArguments(slowComputeTool, { seconds: 'ten', label: 7 });
            assert.fail('expected invalid arguments');
        } catch (err) {
            assert.ok(err instanceof RpcError);
            assert.match(err.message, /seconds: .*; label: /);
            const issues = (err.data as { issues: { path: unknown[] }[] }).issues;
            assert.deepEqual(issues.map(i => i.path).sort(), [['label'], ['seconds']]);
        }
    });

    it('names nested fields by path, and the whole object when it is not one', () => {
        const nested = defineTool({
            name: 'nested',
            title: 'Nested',
            description: 'test',
            inputSchema: z.object({ job: z.object({ id: z.string() }) }),
            taskSupport: 'optional',
            run: async () => textResult('ok'),
        });
        rpcError(() => parseArguments(nested, { job: { id: 1 } }), -32602, /nested: job\.id: /);
        rpcError(() => parseArguments(nested, 'not an object'), -32602, /\(arguments\): /);
    });
});
