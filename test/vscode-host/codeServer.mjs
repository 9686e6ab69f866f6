// Starts and stops code-server, the VS Code server build whose extension host
// runs on Node: our stand-in for a desktop VS Code where none can be downloaded.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { delimiter, dirname } from 'node:path';
import { killTree, runCommand } from './proc.mjs';

/** A port that was free a moment ago; code-server binds it right after. */
export function freePort() {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.on('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}

/**
 * Environment for every code-server process: XDG folders point into the run's temp
 * folder (else code-server writes config and state into the home folder), and Node 24
 * leads PATH so anything the host or an extension spawns as `node` matches the host.
 */
export function hostEnv({ nodeBin, xdg }) {
    return {
        ...process.env,
        PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH}`,
        XDG_CONFIG_HOME: xdg.config,
        XDG_DATA_HOME: xdg.data,
        XDG_CACHE_HOME: xdg.cache,
        XDG_STATE_HOME: xdg.state,
    };
}

export async function installVsix({ host, env, vsix, extensionsDir, userDataDir }) {
    await runCommand(
        host.nodeBin,
        [host.codeServerBin, '--install-extension', vsix, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir],
        { env, stdio: ['ignore', 2, 2] },
    );
}

async function waitForHealthy(port, child, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`code-server exited early (${child.signalCode ?? child.exitCode})`);
        }
        try {
            const response = await fetch(`http://127.0.0.1:${port}/healthz`);
            if (response.ok) {
                return;
            }
        } catch {
            // Not listening yet.
        }
        await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`code-server did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts code-server and resolves once it answers HTTP. It runs in its own process
 * group (detached) so `stop()` can end it with everything it forked.
 * `workspaceTrust`: leave VS Code's workspace trust on (off by default: every folder trusted).
 */
export async function startCodeServer({ host, env, userDataDir, extensionsDir, workspaceTrust = false, log = () => {} }) {
    const port = await freePort();
    const args = [
        host.codeServerBin,
        '--bind-addr', `127.0.0.1:${port}`,
        '--auth', 'none',
        '--disable-telemetry',
        '--disable-update-check',
        // The flag reaches the workbench as enableWorkspaceTrust: false, which no setting overrides.
        ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
        '--ignore-last-opened',
        // Without the smoke-test driver the built workbench ignores the extension
        // development keys in `payload` and never calls codeAutomationExit.
        '--vscode-option', 'enable-smoke-test-driver',
        '--user-data-dir', userDataDir,
        '--extensions-dir', extensionsDir,
    ];
    const child = spawn(host.nodeBin, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (chunk) => {
        for (const line of chunk.toString().split('\n')) {
            if (line.trim()) {
                log(line);
            }
        }
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    const stop = () => killTree(child);
    try {
        await waitForHealthy(port, child, 30_000);
    } catch (error) {
        await stop();
        throw error;
    }
    return { port, child, stop };
}
