import { spawn } from 'node:child_process';
import { once } from 'node:events';
// The programs run here (the demo starts dist/server.js) keep tasks in this test process's state folder, never the user's.
import './serverState.js';

export interface Ended {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** Runs `node ARGS` to its end with both outputs collected; SIGKILL after `limitMs` so a hung child cannot hang the suite. */
export async function runNodeToEnd(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; limitMs: number }): Promise<Ended> {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', chunk => (stdout += String(chunk)));
    child.stderr.on('data', chunk => (stderr += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    return { code, stdout, stderr };
}
