/**
 * The environment a wrapped server starts with, read back through server-everything's own
 * `get-env` tool: the gateway's environment (proxy settings, a user's keys) with the entry's `env`
 * on top, the same with or without an `env` key, and never our MCP_TASKS_* tokens.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { secret, textOf } from '../../support/helpers.js';
import { EVERYTHING, stdioGateway, type Gateway } from './gatewayHelpers.js';

const owner = secret();
const [alice, bob] = [secret(), secret()];
/** What the gateway is started with: our tokens, and what a user's environment holds for npx and for the server. */
const GATEWAY_ENV = {
    MCP_TASKS_OWNER_TOKEN: owner,
    MCP_TASKS_TOKEN: `${alice},${bob}`,
    MCP_TASKS_LOG_LEVEL: 'debug',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NPM_CONFIG_CAFILE: '/etc/ssl/certs/ca-certificates.crt',
    GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_users_own_key_for_the_server',
};

async function envOf(gateway: Gateway, tool: string): Promise<{ env: Record<string, string>; text: string }> {
    const text = textOf(await gateway.client.callTool({ name: tool, arguments: {} }));
    return { env: JSON.parse(text) as Record<string, string>, text };
}

function assertNoTokens(env: Record<string, string>, text: string): void {
    assert.deepEqual(
        Object.keys(env).filter(key => key.startsWith('MCP_TASKS_')),
        [],
        'no MCP_TASKS_ variable reaches the wrapped server',
    );
    for (const value of [owner, alice, bob]) {
        assert.ok(!text.includes(value), 'no token value reaches the wrapped server, under any name');
    }
}

describe("a wrapped server's environment", { timeout: 60_000 }, () => {
    let dir: string;
    let gateway: Gateway;

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'gateway-env-'));
        // A Claude Desktop file: one server without an env key, one with.
        const file = join(dir, 'claude_desktop_config.json');
        const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
        writeFileSync(file, JSON.stringify({ mcpServers: { plain: everything, keyed: { ...everything, env: { ENTRY_SETTING: 'from-the-entry', HTTPS_PROXY: 'http://127.0.0.1:10' } } } }));
        gateway = await stdioGateway(['--wrap-config', file], {}, GATEWAY_ENV);
    });
    after(async () => {
        await gateway?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('an entry without env gets the gateway environment (not only HOME and PATH), without our tokens', async () => {
        const { env, text } = await envOf(gateway, 'plain_get-env');
        assert.equal(env.HTTPS_PROXY, 'http://127.0.0.1:9');
        assert.equal(env.NPM_CONFIG_CAFILE, GATEWAY_ENV.NPM_CONFIG_CAFILE);
        assert.equal(env.GITHUB_PERSONAL_ACCESS_TOKEN, GATEWAY_ENV.GITHUB_PERSONAL_ACCESS_TOKEN, "the user's own keys are for the servers they run");
        assert.equal(env.ENTRY_SETTING, undefined);
        assertNoTokens(env, text);
    });

    it('an entry with env gets the same, its own values on top, without our tokens', async () => {
        const { env, text } = await envOf(gateway, 'keyed_get-env');
        assert.equal(env.ENTRY_SETTING, 'from-the-entry');
        assert.equal(env.HTTPS_PROXY, 'http://127.0.0.1:10', "the entry's value wins");
        assert.equal(env.NPM_CONFIG_CAFILE, GATEWAY_ENV.NPM_CONFIG_CAFILE);
        assertNoTokens(env, text);
    });

    it('logs one line for each start, naming what it runs', () => {
        for (const name of ['plain', 'keyed']) {
            assert.ok(
                gateway.log.lines.some(line => line.includes(`[${name}] starting: ${process.execPath} ${EVERYTHING} stdio`)),
                gateway.log.lines.join('\n'),
            );
        }
    });
});

describe('a wrapped server that fails to start', { timeout: 60_000 }, () => {
    it('says why, with the last lines it wrote to stderr, its secrets hidden', async () => {
        const failing = `process.stderr.write('Error: GITHUB_TOKEN ' + process.env.GITHUB_TOKEN + ' was refused\\n'); process.exit(3);`;
        const gateway = await stdioGateway(['--wrap', '--', process.execPath, '-e', failing], {}, { GITHUB_TOKEN: 'ghp_secret_value_1234' });
        try {
            const line = await gateway.log.waitFor(/could not start: .*the last it wrote to stderr: /);
            assert.match(line, /Error: GITHUB_TOKEN \*\*\* was refused/);
            assert.ok(!gateway.log.lines.some(logged => logged.includes('ghp_secret_value_1234')), 'the secret is never logged');
        } finally {
            await gateway.close();
        }
    });
});
