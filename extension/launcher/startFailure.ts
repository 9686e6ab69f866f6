// Why a server did not start, in the server's own words and the user's setting names (no vscode
// import: unit-tested). The server decides what is valid; the extension only reports it.
import { SETTINGS_SECTION, Settings } from '../constants';

/** The server exits with this code when its command line is wrong: a setting, never a busy port. */
export const USAGE_EXIT_CODE = 2;

/** A server that exited before it listened, with its own reason (from stderr). */
export class ServerStartError extends Error {
    constructor(
        /** The server's words, flags renamed to the settings that set them. */
        readonly reason: string,
        readonly exitCode: number | null,
        /** The first setting the reason names: what Open Settings shows. */
        readonly setting?: string,
    ) {
        super(reason);
        this.name = 'ServerStartError';
    }

    /** The launch's settings are wrong: another port or another try cannot help. */
    get isSettingsProblem(): boolean {
        return this.exitCode === USAGE_EXIT_CODE;
    }
}

/** The server's flags that a setting sets (serverArgs.ts limitArgs), and that setting's full id. */
export const FLAG_SETTINGS: Readonly<Record<string, string>> = {
    '--default-ttl': `${SETTINGS_SECTION}.${Settings.defaultTtl}`,
    '--max-ttl': `${SETTINGS_SECTION}.${Settings.maxTtl}`,
    '--max-tasks-per-client': `${SETTINGS_SECTION}.${Settings.maxTasksPerClient}`,
    '--log-level': `${SETTINGS_SECTION}.${Settings.logLevel}`,
    '--abandon-after': `${SETTINGS_SECTION}.${Settings.abandonAfter}`,
    '--stopped-waiting': `${SETTINGS_SECTION}.${Settings.stoppedWaiting}`,
    '--no-task-tools': `${SETTINGS_SECTION}.${Settings.taskTools}`,
    '--no-demo-tools': `${SETTINGS_SECTION}.${Settings.demoTools}`,
};

/** A usage error: "mcp-tasks: <reason>" (cli.ts). */
const USAGE_LINE = /^mcp-tasks: (?!fatal:)(.+)$/;
/** A log line: "<ISO time> ERROR [component] <message>" (server/src/util/log.ts). */
const ERROR_LINE = /^\S+ ERROR\s+(?:\[[\w-]+\] )?(.+)$/;
const FATAL_LINE = /^mcp-tasks: fatal: (.+)$/;

/** The server's own reason among the stderr lines it wrote before exiting; undefined when it gave none. */
export function serverReason(stderr: readonly string[]): string | undefined {
    for (const pattern of [USAGE_LINE, FATAL_LINE, ERROR_LINE]) {
        const line = stderr.find(text => pattern.test(text));
        if (line) {
            return pattern.exec(line)![1]!.trim();
        }
    }
    return undefined;
}

/** The reason with each flag a setting sets named by that setting ("mcpTasks.server.defaultTtl must not exceed mcpTasks.server.maxTtl"). */
export function inSettingWords(reason: string): { text: string; setting?: string } {
    let setting: string | undefined;
    const text = reason.replace(/--[a-z][a-z-]*/g, flag => {
        const id = FLAG_SETTINGS[flag];
        setting ??= id;
        return id ?? flag;
    });
    return { text, setting };
}

/** The error for a server that exited with `exitCode` before it listened, having written `stderr`. */
export function startError(stderr: readonly string[], exitCode: number | null, fallback: string): ServerStartError {
    const reason = serverReason(stderr);
    if (reason === undefined) {
        return new ServerStartError(fallback, exitCode);
    }
    const { text, setting } = inSettingWords(reason);
    return new ServerStartError(text, exitCode, setting);
}
