/** Levels in increasing verbosity; a logger prints a line when its level is at least the line's. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
    error(message: string): void;
    warn(message: string): void;
    info(message: string): void;
    debug(message: string): void;
}

export type LogSink = (line: string) => void;

/** Writes to stderr by default: stdout belongs to the protocol in stdio mode. */
export function createLogger(level: LogLevel = 'info', sink: LogSink = line => process.stderr.write(line + '\n')): Logger {
    const max = LOG_LEVELS.indexOf(level);
    const at = (lvl: LogLevel) => (message: string) => {
        if (LOG_LEVELS.indexOf(lvl) <= max) {
            sink(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${message}`);
        }
    };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

export function errorMessage(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
