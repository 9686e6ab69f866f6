import { homedir } from 'node:os';
import { currentPlatform, type Platform } from '../platform/index.js';

/**
 * Where this user's MCP Tasks keeps its data (the durable task store) when no folder is given:
 * the platform's place for an application's own state (Platform.dataDir). Linux and the BSDs:
 * `$XDG_STATE_HOME` (default `~/.local/state`); macOS: `~/Library/Application Support`; Windows: `%LOCALAPPDATA%`.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: Platform = currentPlatform, home = homedir()): string {
    return platform.dataDir(env, home);
}
