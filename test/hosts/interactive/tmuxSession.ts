/**
 * A host run interactively in a terminal: a tmux server of its own (its socket in the run's folder,
 * no user config), one window of a fixed size, keys sent as a user types them and the screen read
 * back with capture-pane. Closing kills that tmux server, and with it the host.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { processRunning } from '../../../server/src/platform/index.js';
import { waitUntil } from '../../support/wait.js';

export class TmuxSession {
    private readonly socket: string;

    private constructor(dir: string) {
        this.socket = join(dir, 'tmux.sock');
    }

    /** Starts `command` in a new detached session; `env` is all it gets besides what tmux sets (TERM, TMUX). */
    static start(dir: string, command: string, args: string[], options: { env: Record<string, string>; cwd: string }): TmuxSession {
        const session = new TmuxSession(dir);
        const env = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
        session.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'host', '-x', '160', '-y', '50', '-c', options.cwd, ...env, command, ...args]);
        // A host that exits leaves its last screen to read (a failure then shows why it exited).
        try {
            session.tmux(['set-option', '-t', 'host', 'remain-on-exit', 'on']);
        } catch {
            // It exited before the option could be set: its screen is gone with it.
        }
        return session;
    }

    private tmux(args: string[]): string {
        return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    }

    /** The visible screen, blank lines dropped. */
    screen(): string {
        try {
            return this.tmux(['capture-pane', '-p', '-t', 'host']).replace(/\n\s*\n/g, '\n');
        } catch {
            // The host has exited and took the session with it.
            return '';
        }
    }

    /** Types `text` and presses Enter (separately: a pasted Enter would be part of the text). */
    async type(text: string): Promise<void> {
        this.tmux(['send-keys', '-t', 'host', '-l', text]);
        await this.waitForScreen(screen => screen.includes(text.slice(0, 40)), `the typed text "${text}" on screen`);
        this.tmux(['send-keys', '-t', 'host', 'Enter']);
    }

    /** Presses keys by tmux's names (Enter, Down, Right, Escape, C-c). */
    press(...keys: string[]): void {
        this.tmux(['send-keys', '-t', 'host', ...keys]);
    }

    /** Waits until the screen passes `check`, failing with the screen as it last was. */
    waitForScreen(check: (screen: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
        let last = '';
        return waitUntil(
            () => {
                last = this.screen();
                return check(last) ? last : undefined;
            },
            what,
            { everyMs: 250, timeoutMs },
        ).catch((error: Error) => {
            throw new Error(`${error.message}\nscreen:\n${last}`);
        });
    }

    /** Kills the session and waits for the host to exit: it writes its history files as it goes, and its folder is removed next. */
    async close(): Promise<void> {
        let pid = 0;
        try {
            pid = Number(this.tmux(['display-message', '-p', '-t', 'host', '#{pane_pid}']).trim());
            this.tmux(['kill-server']);
        } catch {
            // Already gone with its last window.
        }
        if (pid > 0) {
            await waitUntil(() => !processRunning(pid), `the host (pid ${pid}) to exit`, { everyMs: 100, timeoutMs: 10_000 }).catch(() => {
                try {
                    process.kill(pid, 'SIGKILL');
                } catch {
                    // Gone between the check and the kill.
                }
            });
        }
    }
}
