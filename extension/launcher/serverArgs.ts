/** Pure helpers that turn settings into the server's command line (no vscode import: unit-tested). */
import { Env } from '@mcp-tasks/server/contract';

export interface LimitSettings {
    defaultTtl: string;
    maxTtl: string;
    maxTasksPerClient: number;
    logLevel: string;
    taskTools: boolean;
    demoTools: boolean;
    /** A duration, or "off" (or empty, or 0) for never. */
    abandonAfter: string;
    /** The command tools' merged file and log folder (not a setting: the extension fills it in). */
    commands?: { file: string; logDir: string };
}

export function limitArgs(settings: LimitSettings): string[] {
    return [
        '--default-ttl',
        settings.defaultTtl,
        '--max-ttl',
        settings.maxTtl,
        '--max-tasks-per-client',
        String(settings.maxTasksPerClient),
        '--log-level',
        settings.logLevel,
        ...(settings.taskTools ? [] : ['--no-task-tools']),
        ...(settings.demoTools ? [] : ['--no-demo-tools']),
        ...abandonArgs(settings.abandonAfter),
        ...(settings.commands ? ['--commands', settings.commands.file, '--commands-log-dir', settings.commands.logDir] : []),
    ];
}

/** VS Code polls a task-augmented call's task and never cancels it: a stopped chat shows only as polls that stop. */
function abandonArgs(value: string): string[] {
    const text = value.trim();
    return text === '' || text === 'off' || text === '0' ? [] : ['--abandon-after', text];
}

export function httpArgs(serverJs: string, settings: LimitSettings, port = 0): string[] {
    return [serverJs, '--http', '--port', String(port), '--exit-with-stdin', ...limitArgs(settings)];
}

export function stdioArgs(serverJs: string, settings: LimitSettings): string[] {
    return [serverJs, '--stdio', ...limitArgs(settings)];
}

/** What every server child needs: VS Code's executable must run as plain Node. */
export function baseEnv(): Record<string, string> {
    return { ELECTRON_RUN_AS_NODE: '1' };
}

/** Secrets travel in the environment, never on the command line (visible in `ps`). */
export function serverEnv(secrets: { clientToken?: string; ownerToken: string; ownerAnnounce?: string }): Record<string, string> {
    const env: Record<string, string> = { ...baseEnv(), [Env.ownerToken]: secrets.ownerToken };
    if (secrets.clientToken) {
        env[Env.clientTokens] = secrets.clientToken;
    }
    if (secrets.ownerAnnounce) {
        env[Env.ownerAnnounce] = secrets.ownerAnnounce;
    }
    return env;
}

/** Restart delays: 1 s doubling to 30 s; back to 1 s after a minute of healthy running. */
export function backoffDelay(attempt: number): number {
    return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
}
