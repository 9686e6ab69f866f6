import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const SERVER_JS = resolve(__dirname, '../../dist/server.js');

/** The lines a process writes to a stream, kept so a step can look for one. */
class LogLines {
    readonly lines: string[] = [];
    private readonly watchers = new Set<(line: string) => void>();

    constructor(stream: NodeJS.ReadableStream) {
        createInterface({ input: stream }).on('line', line => {
            this.lines.push(line);
            this.watchers.forEach(watch => watch(line));
        });
    }

    /** Resolves with the first line (already written or future) that matches, or undefined after the timeout. */
    waitFor(pattern: RegExp, timeoutMs: number): Promise<string | undefined> {
        const seen = this.lines.find(line => pattern.test(line));
        if (seen) {
            return Promise.resolve(seen);
        }
        return new Promise(resolve => {
            const finish = (line: string | undefined) => {
                clearTimeout(timer);
                this.watchers.delete(watch);
                resolve(line);
            };
            const watch = (line: string) => pattern.test(line) && finish(line);
            const timer = setTimeout(() => finish(undefined), timeoutMs);
            this.watchers.add(watch);
        });
    }
}

/** The server process the demo started: its URL and what it logs on stderr. */
export class DemoServer {
    private constructor(
        readonly url: string,
        readonly log: LogLines,
        private readonly proc: ChildProcess,
    ) {}

    /** Starts `node dist/server.js --http --port 0` with the token in its environment. */
    static async start(token: string): Promise<DemoServer> {
        if (!existsSync(SERVER_JS)) {
            throw new Error(`${SERVER_JS} is missing: run "npm run build" first`);
        }
        // --exit-with-stdin: the server goes away with the demo, even if the demo is killed.
        const proc = spawn(process.execPath, [SERVER_JS, '--http', '--port', '0', '--exit-with-stdin'], {
            stdio: ['pipe', 'pipe', 'pipe'],
            env: { ...process.env, MCP_TASKS_TOKEN: token },
        });
        const log = new LogLines(proc.stderr!);
        const first = await Promise.race([
            once(createInterface({ input: proc.stdout! }), 'line').then(([line]) => String(line)),
            once(proc, 'exit').then(([code]) => {
                throw new Error(`the server exited with ${String(code)} before listening:\n${log.lines.join('\n')}`);
            }),
        ]);
        return new DemoServer((JSON.parse(first) as { url: string }).url, log, proc);
    }

    async stop(): Promise<void> {
        if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
            return;
        }
        const exited = once(this.proc, 'exit');
        this.proc.kill('SIGTERM');
        await exited;
    }
}
