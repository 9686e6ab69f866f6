const SECRET_NAME = /TOKEN|SECRET|PASSWORD|KEY/i;
/** The server's own variables (its client and owner tokens among them) are never handed to commands. */
const SERVER_PREFIX = 'MCP_TASKS_';

/** The environment a command runs with: the server's, minus its own settings, plus the entry's. */
export function commandEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(base)) {
        if (value !== undefined && !key.startsWith(SERVER_PREFIX)) {
            env[key] = value;
        }
    }
    return Object.assign(env, extra);
}

/**
 * The server's own credentials in its environment (its client and owner tokens; a list is
 * comma-separated). They are kept from commands, and hidden anyway: a command can still read
 * them elsewhere, such as /proc/$PPID/environ.
 */
export function serverSecretsOf(base: NodeJS.ProcessEnv): string[] {
    const values: string[] = [];
    for (const [key, value] of Object.entries(base)) {
        if (value && key.startsWith(SERVER_PREFIX) && SECRET_NAME.test(key.slice(SERVER_PREFIX.length))) {
            values.push(value, ...value.split(',').map(part => part.trim()));
        }
    }
    return values;
}

/**
 * The values to hide: every value the entry sets, any variable whose name says it is a secret,
 * and the server's own credentials.
 */
export function secretValues(env: Record<string, string>, extra: Record<string, string>, server: readonly string[] = []): string[] {
    const values = new Set<string>([...Object.values(extra), ...server]);
    for (const [key, value] of Object.entries(env)) {
        if (SECRET_NAME.test(key)) {
            values.add(value);
        }
    }
    // Very short values would blank out ordinary text; they are no secret worth the noise.
    return [...values].filter(value => value.length >= 4).sort((a, b) => b.length - a.length);
}

/** Replaces each secret in a line of output with `***`. */
export function redactor(secrets: readonly string[]): (line: string) => string {
    if (secrets.length === 0) {
        return line => line;
    }
    return line => {
        for (const secret of secrets) {
            if (line.includes(secret)) {
                line = line.split(secret).join('***');
            }
        }
        return line;
    };
}
