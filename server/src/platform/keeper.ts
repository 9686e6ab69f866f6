import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { SpawnPlan } from './platform.js';

/**
 * The POSIX shell script that runs a command that may outlive the server (a command task on a
 * durable store). A process's exit status goes only to its parent, and a server that died cannot
 * be told it; so the command runs under this small sh, which stays its parent and leaves the status
 * in a file for whichever server re-adopts the task. It runs as
 * `sh -c KEEPER <status file> <window seconds> <program> <args…>`, its descriptor 3 the read end
 * of a pipe the server holds (the lifeline; the command itself never gets it).
 *
 * The command runs in the foreground, so it starts with the signal dispositions it would have had
 * without the keeper. A watchdog subshell waits on the lifeline: while the server lives it sits in
 * `read`, with no process of its own. When the server is gone (end of file: it exited or was
 * killed), it waits the window; if by then a server has re-adopted the job (its pid in
 * `<status>.held`, still running) it waits again while that server lives; otherwise it marks the job
 * abandoned and stops the whole process group, TERM and then KILL: nothing is orphaned for good.
 * A status above 128 is the command's death by that signal, raised again on the keeper so that the
 * server that started it sees the signal as before.
 */
export const KEEPER_SCRIPT = [
    's=$0; w=$1; shift',
    '(',
    '  read -r _ <&3',
    '  exec 3<&-',
    "  trap 'kill $p 2>/dev/null; exit 0' TERM",
    '  while :; do',
    '    sleep "$w" & p=$!; wait $p',
    '    h=$(cat "$s.held" 2>/dev/null)',
    '    if [ -n "$h" ] && kill -0 "$h" 2>/dev/null; then',
    '      while kill -0 "$h" 2>/dev/null; do sleep 5 & p=$!; wait $p; done',
    '    else',
    // Not a bare `: >`: a redirection that fails on a special built-in ends a non-interactive shell, and the stop with it.
    '      (: > "$s.abandoned") 2>/dev/null',
    "      trap '' TERM",
    '      kill -TERM 0',
    '      sleep 5',
    '      kill -KILL 0',
    '    fi',
    '  done',
    ') &',
    'd=$!',
    'exec 3<&-',
    '"$@"',
    'x=$?',
    'kill $d 2>/dev/null',
    'wait $d 2>/dev/null',
    // Written in place: it is read only once this keeper is gone, so never half written (and no `mv` to start).
    'printf \'%s\\n\' "$x" > "$s"',
    'if [ "$x" -gt 128 ]; then trap - TERM INT HUP; kill -$((x - 128)) $$ 2>/dev/null; fi',
    'exit $x',
].join('\n');

/**
 * `plan` run under the keeper, or undefined when the program is not found on PATH: spawned as
 * itself it then fails to start the usual way (ENOENT), where under sh it would be a shell's
 * "not found" exit 127.
 */
export function posixKeptPlan(plan: SpawnPlan, env: NodeJS.ProcessEnv, cwd: string, statusPath: string, windowSeconds: number): SpawnPlan | undefined {
    if (!found(plan.file, env.PATH, cwd)) {
        return undefined;
    }
    return { file: '/bin/sh', args: ['-c', KEEPER_SCRIPT, statusPath, String(windowSeconds), plan.file, ...plan.args], options: plan.options };
}

/** Where execvp would find `file`: as a path (relative to the run's cwd) when it holds a slash, else in PATH's folders. */
function found(file: string, path: string | undefined, cwd: string): boolean {
    if (file.includes('/')) {
        return executable(isAbsolute(file) ? file : join(cwd, file));
    }
    return (path ?? '').split(delimiter).some(dir => dir !== '' && executable(join(dir, file)));
}

function executable(path: string): boolean {
    try {
        accessSync(path, constants.X_OK);
        return true;
    } catch {
        return false;
    }
}
