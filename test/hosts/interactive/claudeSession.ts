/**
 * Claude Code in its interactive mode, in tmux, against the scripted Anthropic model and our server
 * over HTTP (a bearer token, through the message tap), or on stdio, started by Claude Code itself. Interactive is the mode that declares the
 * 2026-07-28 Tasks extension (`-p` declares none), so this is where the tasks path is covered.
 *
 * Over HTTP the server is up before the host starts, so its first answer to `server/discover` is
 * never late; a stdio server started by the host on a loaded machine missed Claude Code's 3 s
 * probe and was talked to in 2025-11-25, with no tasks (docs/HOSTS.md).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_NAME } from '../drivers/driver.js';
import type { InstalledHost } from '../hostInstall.js';
import { baseEnv, type HostDirs } from '../hostProcess.js';
import { TmuxSession } from './tmuxSession.js';

/** A key in the form Claude Code takes for an API key: its last 20 characters are what it approves. */
const API_KEY = 'sk-ant-scripted-0123456789abcdefghij';

export interface ClaudeSessionInput {
    installed: InstalledHost;
    dirs: HostDirs;
    modelUrl: string;
    proxyUrl: string;
    /** Our server over HTTP (the tap's URL in front of it, and its token), or the command that starts it on stdio. */
    mcp: { url: string; token: string } | { command: string; args: string[] };
    /** Extra arguments (`--resume <id>`). */
    args?: string[];
}

/**
 * Writes what a user who has used Claude Code before has (onboarding done, this key approved, the
 * folder trusted: each would otherwise be a dialog first) and starts it.
 */
export function startClaudeSession({ installed, dirs, modelUrl, proxyUrl, mcp, args = [] }: ClaudeSessionInput): TmuxSession {
    writeFileSync(
        join(dirs.home, '.claude.json'),
        JSON.stringify({
            hasCompletedOnboarding: true,
            theme: 'dark',
            customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
            projects: { [dirs.workdir]: { hasTrustDialogAccepted: true, allowedTools: [] } },
        }),
    );
    const mcpConfig = join(dirs.root, 'mcp.json');
    const server = 'url' in mcp ? { type: 'http', url: mcp.url, headers: { Authorization: `Bearer ${mcp.token}` } } : { type: 'stdio', command: mcp.command, args: mcp.args };
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER_NAME]: server } }));
    const env: Record<string, string> = {
        ...baseEnv(dirs, proxyUrl),
        // A terminal it draws in (baseEnv's dumb one is for -p).
        TERM: 'xterm-256color',
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: API_KEY,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        ENABLE_TOOL_SEARCH: 'false',
    };
    const command = ['--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', `mcp__${SERVER_NAME}`, '--model', 'claude-sonnet-4-5', ...args];
    return TmuxSession.start(dirs.root, installed.entry, command, { env, cwd: dirs.workdir });
}
