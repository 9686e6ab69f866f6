/** Gemini CLI `gemini -p`, pointed at the scripted model by GOOGLE_GEMINI_BASE_URL. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Driver, entryCommand, SERVER_NAME } from './driver.js';

export const gemini: Driver = ({ installed, dirs, modelUrl, server, prompt, env }) => {
    const settingsDir = join(dirs.home, '.gemini');
    mkdirSync(settingsDir, { recursive: true });
    const settings = {
        mcpServers: { [SERVER_NAME]: { command: server.command, args: server.args, trust: true } },
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
    };
    writeFileSync(join(settingsDir, 'settings.json'), JSON.stringify(settings, null, 2));
    const args = ['-p', prompt, '--yolo', '--model', 'gemini-2.5-flash', '--output-format', 'text'];
    return {
        ...entryCommand(installed, args),
        env: {
            ...env,
            GEMINI_API_KEY: 'scripted',
            GOOGLE_GEMINI_BASE_URL: modelUrl,
            // It would re-exec itself with a larger heap: one process is easier to bound.
            GEMINI_CLI_NO_RELAUNCH: 'true',
            NO_BROWSER: 'true',
        },
    };
};
