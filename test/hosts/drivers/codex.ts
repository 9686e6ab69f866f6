/** Codex `codex exec`, pointed at the scripted model by a Responses provider in CODEX_HOME/config.toml. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Driver, entryCommand, SERVER_NAME } from './driver.js';

const toml = (value: string | string[]): string => JSON.stringify(value);

export const codex: Driver = ({ installed, dirs, modelUrl, server, prompt, env }) => {
    const codexHome = join(dirs.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
        join(codexHome, 'config.toml'),
        [
            'model = "scripted"',
            'model_provider = "scripted"',
            '[model_providers.scripted]',
            'name = "scripted"',
            `base_url = ${toml(`${modelUrl}/v1`)}`,
            'wire_api = "responses"',
            'env_key = "SCRIPTED_API_KEY"',
            'request_max_retries = 0',
            'stream_max_retries = 0',
            `[mcp_servers.${SERVER_NAME}]`,
            `command = ${toml(server.command)}`,
            `args = ${toml(server.args)}`,
            // Wait for our tools before the first model request (without it a slow start loses them).
            'required = true',
            '',
        ].join('\n'),
    );
    const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', '-C', dirs.workdir, prompt];
    return { ...entryCommand(installed, args), env: { ...env, CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'scripted' } };
};
