// One throwaway folder per run holds everything code-server and VS Code write,
// so parallel runs never share state and cleanup is a single rm.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Quiet, deterministic workbench: no welcome editor over the screenshot, nothing
// that tries to reach the marketplace.
const DEFAULT_SETTINGS = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'security.workspace.trust.enabled': false,
};

export function createRunDirs({ settings = {} } = {}) {
    const root = mkdtempSync(join(tmpdir(), 'mcp-tasks-vscode-run-'));
    const dirs = {
        root,
        userData: join(root, 'user-data'),
        extensions: join(root, 'extensions'),
        workspace: join(root, 'workspace'),
        // An empty extension-development folder; see run.mjs for why one is needed.
        noDevExtension: join(root, 'no-dev-extension'),
        // VS Code puts its IPC sockets in the temp dir: keep them in the run folder.
        tmp: join(root, 'tmp'),
        chromiumHome: join(root, 'chromium-home'),
        // State too: a server started there without --data-dir keeps its tasks in $XDG_STATE_HOME (an
        // untrusted workspace's run wrote an empty tasks.db into the user's own data folder).
        xdg: { config: join(root, 'xdg-config'), data: join(root, 'xdg-data'), cache: join(root, 'xdg-cache'), state: join(root, 'xdg-state') },
    };
    for (const dir of [dirs.userData, dirs.extensions, dirs.workspace, dirs.noDevExtension, dirs.tmp, dirs.chromiumHome, ...Object.values(dirs.xdg)]) {
        mkdirSync(dir, { recursive: true });
    }
    // code-server keeps user settings on the server side, in the user-data dir.
    mkdirSync(join(dirs.userData, 'User'), { recursive: true });
    writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, '\t'));
    return { dirs, remove: () => rmSync(root, { recursive: true, force: true }) };
}
