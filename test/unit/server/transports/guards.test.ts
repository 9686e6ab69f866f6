import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerToken, hostAllowed, isLoopbackHost, originAllowed, principalOf, secretMatches } from '../../../../server/src/transports/guards.js';

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
