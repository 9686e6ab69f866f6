// The extension's launch settings are server flags by name (SETTING_FLAGS, typed against the flag
// table): each setting's command line reads back, through the server's own parser, as the value the
// setting holds, and package.json's setting defaults are the server's (or the extension's stated own).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Settings, SETTINGS_SECTION } from '../../../../extension/constants';
import { baseEnv, limitArgs, serverEnv, settingDefault, SETTING_FLAGS, type LimitSettings } from '../../../../extension/launcher/serverArgs';
import { parseCli } from '../../../../server/src/options.js';

const root = resolve(__dirname, '../../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> }[] } };
const properties = Object.assign({}, ...manifest.contributes.configuration.map(group => group.properties)) as Record<string, { default?: unknown }>;

const settings: Omit<LimitSettings, 'commands'> = {
    defaultTtl: '2h',
    maxTtl: '3h',
    maxTasksPerClient: 7,
    logLevel: 'debug',
    taskTools: false,
    demoTools: false,
    abandonAfter: '45s',
    stoppedWaiting: 'keep',
};

describe('launch settings as server flags', () => {
    it('every launch setting reads back through the server parser as the value it holds', () => {
        const options = parseCli(limitArgs(settings), {});
        assert.deepEqual(
            [options.defaultTtlMs, options.maxTtlMs, options.maxTasksPerClient, options.logLevel, options.taskTools, options.demoTools, options.abandonAfterMs, options.stoppedWaiting],
            [7_200_000, 10_800_000, 7, 'debug', false, false, 45_000, 'keep'],
        );
        const defaults = parseCli(limitArgs({ ...settings, taskTools: true, demoTools: true, abandonAfter: 'off' }), {});
        assert.deepEqual([defaults.taskTools, defaults.demoTools, defaults.abandonAfterMs], [true, true, 0]);
    });

    it("package.json's defaults are the flags' defaults", () => {
        for (const setting of Object.keys(SETTING_FLAGS) as (keyof typeof SETTING_FLAGS)[]) {
            const key = `${SETTINGS_SECTION}.${Settings[setting]}`;
            assert.ok(key in properties, `${key} in package.json`);
            assert.equal(properties[key]!.default, settingDefault(setting), key);
        }
        assert.equal(settingDefault('defaultTtl'), '1h');
        assert.equal(settingDefault('abandonAfter'), '30s', "the extension's own: stopped chats' tasks are cancelled");
        assert.equal(settingDefault('stoppedWaiting'), 'cancel', "the extension's own: VS Code never sends tasks/cancel, so a stopped call's work is stopped at once");
        assert.equal(parseCli(limitArgs({ ...settings, stoppedWaiting: 'cancel' }), {}).stoppedWaiting, 'cancel');
    });

    it("a flag's variable exported in the editor's environment does not reach its server; the secrets the extension passes do", () => {
        const inherited = { MCP_TASKS_NO_DEMO_TOOLS: '1', MCP_TASKS_STORE: 'redis://h:1', MCP_TASKS_HTTP: '1', MCP_TASKS_TOKEN: 'user-token' };
        const options = parseCli(['--stdio', ...limitArgs(settings)], { ...inherited, ...serverEnv({ ownerToken: 'owner', clientToken: 'client' }) });
        assert.deepEqual([options.transport, options.storeUrl, options.tokens, options.ownerToken], ['stdio', undefined, ['client'], 'owner']);
        assert.equal(parseCli([], { ...inherited, ...baseEnv() }).demoTools, true);
        assert.equal(baseEnv().ELECTRON_RUN_AS_NODE, '1');
    });
});
