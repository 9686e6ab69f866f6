// The installer runs npm inside an outer `npm test`: the inner npm must not inherit the
// outer one's settings (its user agent names the outer Node, which code-server's
// postinstall reads). These tests fail if anything of the outer npm leaks through.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { cachePaths } from './cache.mjs';
import { codeServerInstallEnv, npmEnv } from './install.mjs';

/** What `npm test` on Node 20 puts in its children's environment (abridged, but each kind is here). */
const outerNpm = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: '/root',
    npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
    npm_config_nodedir: '/usr',
    npm_config_global_prefix: '/usr',
    NPM_CONFIG_LOGLEVEL: 'silent',
    npm_lifecycle_event: 'test:integration',
    npm_package_name: 'mcp-tasks',
    npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
    npm_node_execpath: '/usr/bin/node',
    INIT_CWD: '/work/main',
    NODE: '/usr/bin/node',
};

describe('test host installer environment', () => {
    const paths = cachePaths('/tmp/mcp-tasks-cache-under-test');

    it('passes nothing of an outer npm to the code-server install', () => {
        const env = codeServerInstallEnv(paths, outerNpm);
        const leaked = Object.keys(env).filter((key) => key in outerNpm && env[key] === outerNpm[key] && !['PATH', 'HOME'].includes(key));
        assert.deepEqual(leaked, []);
        assert.equal(env.npm_config_user_agent, undefined);
        assert.equal(env.npm_config_nodedir, paths.nodeDir, 'native modules build against the Node that runs code-server');
        assert.equal(env.PATH.split(delimiter)[0], join(paths.nodeDir, 'bin'), 'the installed Node runs npm and the postinstall');
        assert.equal(env.npm_config_cache, paths.npmCache, 'every write stays inside the cache folder');
        assert.equal(env.HOME, '/root');
    });

    it('keeps the plain environment apart from npm settings', () => {
        const env = npmEnv(paths, {}, { ...outerNpm, LANG: 'C.UTF-8' });
        assert.equal(env.LANG, 'C.UTF-8');
        assert.equal(env.PATH, outerNpm.PATH);
        assert.equal(Object.keys(env).filter((key) => /^npm_/i.test(key) && !key.startsWith('npm_config_')).length, 0);
    });

    it('a real inner npm reports its own Node, not the outer one', () => {
        const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-installer-'));
        try {
            writeFileSync(
                join(dir, 'package.json'),
                JSON.stringify({ private: true, scripts: { agent: 'node -e "process.stdout.write(process.env.npm_config_user_agent)"' } }),
            );
            const outer = { ...process.env, ...outerNpm, PATH: process.env.PATH, npm_config_user_agent: 'npm/0.0.0 node/v0.0.1-outer linux x64' };
            const env = npmEnv(cachePaths(join(dir, 'cache')), {}, outer);
            const agent = execFileSync('npm', ['run', '--silent', 'agent'], { cwd: dir, env, encoding: 'utf8' });
            assert.match(agent, new RegExp(`node/${process.version.replace(/\./g, '\\.')}\\b`));
            assert.doesNotMatch(agent, /v0\.0\.1-outer/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
