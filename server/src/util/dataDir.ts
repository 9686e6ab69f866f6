import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where this user's MCP Tasks keeps its data (the durable task store) when no folder is given:
 * the platform's place for an application's own state. Linux and the BSDs: `$XDG_STATE_HOME`
 * (default `~/.local/state`); macOS: `~/Library/Application Support`; Windows: `%LOCALAPPDATA%`.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
    if (platform === 'win32') {
        return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'mcp-tasks');
    }
    if (platform === 'darwin') {
        return join(home, 'Library', 'Application Support', 'mcp-tasks');
    }
    // The XDG spec ignores a relative value.
    const state = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
    return join(state, 'mcp-tasks');
}
