/**
 * cmd.exe has no positional parameters: a value reaches a batch file or a `shell: true` command
 * only inside the line cmd.exe parses. Inside double quotes its operators (& | < > ( ) ^) are
 * plain text, but a quote ends the quoting, `%name%` (and `!name!` where delayed expansion is
 * on) expands even there, and a line break ends the command. A value holding any of those cannot
 * be carried safely ("BatBadBut", CVE-2024-27980), so it is refused, never run.
 */
export function cmdRefusal(value: string): string | undefined {
    const bad = /["%!\r\n\0]/.exec(value);
    return bad ? `cannot be passed through cmd.exe safely: it holds ${JSON.stringify(bad[0])} (cmd.exe would read " % ! and line breaks as its own syntax)` : undefined;
}

/** `value` as one double-quoted argument of a cmd.exe line; throws when cmdRefusal refuses it. */
export function cmdQuote(value: string): string {
    const refusal = cmdRefusal(value);
    if (refusal !== undefined) {
        throw new Error(`The value ${JSON.stringify(value)} ${refusal}.`);
    }
    // The program's own argument parser reads backslashes before the closing quote as escapes: double them.
    return `"${value.replace(/(\\+)$/, '$1$1')}"`;
}

/** The line cmd.exe runs for `/d /s /c`: /s takes the outer quotes off and runs what is between them as typed. */
export function cmdSlashC(line: string): string[] {
    return ['/d', '/s', '/c', `"${line}"`];
}
