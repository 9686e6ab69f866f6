// Opens the workbench in Debian's headless Chromium through playwright-core
// (no Playwright browser download: that needs internet we do not have).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox', // we run as root in CI
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    // No calls home: the machine has no internet and waiting on them slows startup.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
];

/**
 * `home` receives what Chromium writes outside its (Playwright-made) profile:
 * crash-report settings under XDG_CONFIG_HOME, dconf under XDG_CACHE_HOME.
 */
export async function launchChromium({ executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium', home } = {}) {
    const { chromium } = require('playwright-core');
    const env = home ? { ...process.env, HOME: home, XDG_CONFIG_HOME: `${home}/.config`, XDG_CACHE_HOME: `${home}/.cache` } : undefined;
    // Playwright's own signal handlers would close the browser behind our back;
    // the runner owns shutdown and closes it in its cleanup.
    return chromium.launch({
        executablePath,
        args: CHROMIUM_ARGS,
        env,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
    });
}

/**
 * The workbench URL. `payload` is a URL-encoded JSON array of [key, value] pairs;
 * paths in it are vscode-remote URIs whose authority is the code-server address,
 * because the extension host runs on the server, not in the browser.
 */
export function workbenchUrl({ port, workspace, extensionDevelopmentPath, extraDevelopmentPaths = [], extensionTestsPath, extensionEnvironment }) {
    const authority = `127.0.0.1:${port}`;
    const remote = (path) => `vscode-remote://${authority}${encodeURI(path)}`;
    const payload = [];
    if (extensionDevelopmentPath) {
        payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
    }
    // The workbench accepts the key several times: test-only fixture extensions load beside ours.
    for (const path of extraDevelopmentPaths) {
        payload.push(['extensionDevelopmentPath', remote(path)]);
    }
    if (extensionTestsPath) {
        payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
    }
    if (extensionEnvironment && Object.keys(extensionEnvironment).length > 0) {
        payload.push(['extensionEnvironment', JSON.stringify(extensionEnvironment)]);
    }
    // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
    const query = new URLSearchParams(workspace.endsWith('.code-workspace') ? { workspace } : { folder: workspace });
    if (payload.length > 0) {
        query.set('payload', JSON.stringify(payload));
    }
    return `http://${authority}/?${query}`;
}
