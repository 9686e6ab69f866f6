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

/**
 * C0 and C1 controls, DEL, and the Unicode line and paragraph separators: a newline in a tool's
 * argument would otherwise forge a log line (the extension shows logs line by line), an ESC would
 * drive the terminal.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControl(char: string): string {
    return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One log line, whatever the message carries: every control character written as an escape. */
export function escapeLogText(message: string): string {
    CONTROL.lastIndex = 0;
    return CONTROL.test(message) ? message.replace(CONTROL, escapeControl) : message;
}

/** Writes to stderr by default: stdout belongs to the protocol in stdio mode. */
export function createLogger(level: LogLevel = 'info', sink: LogSink = line => process.stderr.write(line + '\n')): Logger {
    const max = LOG_LEVELS.indexOf(level);
    const at = (lvl: LogLevel) => (message: string) => {
        if (LOG_LEVELS.indexOf(lvl) <= max) {
            sink(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${escapeLogText(message)}`);
        }
    };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

export function errorMessage(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}

/** `log` with `redact` applied to every message first: credentials the server was given never reach its log. */
export function redactingLogger(log: Logger, redact: ((text: string) => string) | undefined): Logger {
    if (!redact) {
        return log;
    }
    return {
        error: message => log.error(redact(message)),
        warn: message => log.warn(redact(message)),
        info: message => log.info(redact(message)),
        debug: message => log.debug(redact(message)),
    };
}
