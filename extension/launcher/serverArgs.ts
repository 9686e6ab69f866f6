/** Pure helpers that turn settings into the server's command line (no vscode import: unit-tested). */
import { Env } from '@mcp-tasks/server/contract';
import { envName, flagArgs, flagNamed, FLAGS, formatDuration, type FlagName, type ServerFlag } from '@mcp-tasks/server/flags';

export interface LimitSettings {
    defaultTtl: string;
    maxTtl: string;
    maxTasksPerClient: number;
    logLevel: string;
    taskTools: boolean;
    demoTools: boolean;
    /** A duration, or "off" (or empty, or 0) for never. */
    abandonAfter: string;
    /** What the server does once a chat's task is no longer polled (--stopped-waiting): the extension always has it watched. */
    stoppedWaiting: 'cancel' | 'keep';
    /** The command tools' merged file and log folder (not a setting: the extension fills it in). */
    commands?: { file: string; logDir: string };
    /** The wrapped servers' config file (`--wrap-config`; not a setting: the extension writes it). */
    wrapFile?: string;
    /**
     * The server's data folder (`--data-dir`; not a setting: the extension's storage for this
     * workspace), so a reloaded window's server finds the previous one's tasks and no two
     * workspaces' servers share a file.
     */
    dataDir?: string;
}

/** The server flag each launch setting sets, in command-line order; the names are the server's flag table's. */
export const SETTING_FLAGS = {
    defaultTtl: 'default-ttl',
    maxTtl: 'max-ttl',
    maxTasksPerClient: 'max-tasks-per-client',
    logLevel: 'log-level',
    taskTools: 'no-task-tools',
    demoTools: 'no-demo-tools',
    abandonAfter: 'abandon-after',
    stoppedWaiting: 'stopped-waiting',
} as const satisfies Record<Exclude<keyof LimitSettings, 'commands' | 'wrapFile' | 'dataDir'>, FlagName>;

type LaunchSetting = keyof typeof SETTING_FLAGS;

/**
 * Where the extension departs from the server's defaults: a stopped chat's tasks are cancelled, at
 * once when VS Code's polls stop (VS Code never sends tasks/cancel), else after abandonAfter.
 */
const EXTENSION_DEFAULTS: Partial<Record<LaunchSetting, string>> = { abandonAfter: '30s', stoppedWaiting: 'cancel' };

/** A launch setting's default: the server flag's (package.json's settings say the same; a test checks). */
export function settingDefault<S extends LaunchSetting>(setting: S): LimitSettings[S] {
    const flag: ServerFlag = flagNamed(SETTING_FLAGS[setting]);
    const value = EXTENSION_DEFAULTS[setting] ?? (flag.type === 'off' ? true : flag.type === 'duration' ? formatDuration(flag.default) : 'default' in flag ? flag.default : undefined);
    return value as LimitSettings[S];
}

export function limitArgs(settings: LimitSettings): string[] {
    const args = Object.entries(SETTING_FLAGS).flatMap(([setting, name]) => settingArgs(flagNamed(name), settings[setting as keyof typeof SETTING_FLAGS]));
    return [
        ...args,
        ...(settings.commands ? ['--commands', settings.commands.file, '--commands-log-dir', settings.commands.logDir] : []),
        ...(settings.wrapFile ? ['--wrap-config', settings.wrapFile] : []),
        ...(settings.dataDir ? ['--data-dir', settings.dataDir] : []),
    ];
}

/**
 * A setting's flag; nothing for a duration turned off ("off", empty or 0). VS Code polls a
 * task-augmented call's task and never cancels it: a stopped chat shows only as polls that stop,
 * which --abandon-after notices.
 */
function settingArgs(flag: ServerFlag, value: string | number | boolean): string[] {
    const text = String(value).trim();
    if (flag.type === 'duration' && (text === '' || text === 'off' || text === '0')) {
        return [];
    }
    return flagArgs(flag, typeof value === 'string' ? text : value);
}

export function httpArgs(serverJs: string, settings: LimitSettings, port = 0): string[] {
    return [serverJs, '--http', '--port', String(port), '--exit-with-stdin', ...limitArgs(settings)];
}

export function stdioArgs(serverJs: string, settings: LimitSettings): string[] {
    return [serverJs, '--stdio', ...limitArgs(settings)];
}

/**
 * What every server child needs: VS Code's executable must run as plain Node, and the settings
 * decide: each flag's MCP_TASKS_ variable is set empty (the server reads that as unset), so one a
 * user exported for their own command line does not reach the editor's server.
 */
export function baseEnv(): Record<string, string> {
    const cleared = Object.fromEntries(FLAGS.map(envName).flatMap(name => (name ? [[name, '']] : [])));
    return { ...cleared, ELECTRON_RUN_AS_NODE: '1' };
}

/** Secrets travel in the environment, never on the command line (visible in `ps`). */
export function serverEnv(secrets: { clientToken?: string; ownerToken: string; ownerAnnounce?: string }, lost: readonly { taskId: string; toolName: string }[] = []): Record<string, string> {
    const env: Record<string, string> = { ...baseEnv(), [Env.ownerToken]: secrets.ownerToken };
    if (lost.length > 0) {
        // The tasks the crashed server took with it: a client still waiting on one reads that it was lost.
        env[Env.lostTasks] = JSON.stringify(lost.map(({ taskId, toolName }) => ({ taskId, toolName })));
    }
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
