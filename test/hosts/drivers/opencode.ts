/** opencode `opencode run`, pointed at the scripted model by an openai-compatible provider in OPENCODE_CONFIG. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Driver, entryCommand, SERVER_NAME } from './driver.js';

export const opencode: Driver = ({ installed, dirs, modelUrl, server, prompt, env }) => {
    const config = join(dirs.root, 'opencode.json');
    writeFileSync(
        config,
        JSON.stringify({
            $schema: 'https://opencode.ai/config.json',
            autoupdate: false,
            share: 'disabled',
            model: 'scripted/scripted-model',
            small_model: 'scripted/scripted-model',
            provider: {
                scripted: {
                    npm: '@ai-sdk/openai-compatible',
                    name: 'Scripted',
                    options: { baseURL: `${modelUrl}/v1`, apiKey: 'scripted' },
                    models: { 'scripted-model': { name: 'Scripted model', tool_call: true } },
                },
            },
            mcp: { [SERVER_NAME]: { type: 'local', command: [server.command, ...server.args], enabled: true } },
            permission: { edit: 'allow', bash: 'allow', webfetch: 'allow' },
        }),
    );
    const args = ['run', '--model', 'scripted/scripted-model', prompt];
    return {
        ...entryCommand(installed, args),
        env: {
            ...env,
            OPENCODE_CONFIG: config,
            OPENCODE_DISABLE_AUTOUPDATE: '1',
            OPENCODE_DISABLE_MODELS_FETCH: '1',
            OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
            OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        },
    };
};
