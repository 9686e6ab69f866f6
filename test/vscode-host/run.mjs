// Runs an extension's integration suite inside a real VS Code: code-server
// (VS Code 1.139.1 server build) driven by headless Chromium. The suite is a
// module exporting run(), as with @vscode/test-electron; its outcome comes back
// through window.codeAutomationExit(code, logs) and becomes our exit code.
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { saveAutomationLogs } from './automationLogs.mjs';
import { launchChromium, workbenchUrl } from './browser.mjs';
import { createCleanupStack } from './cleanupStack.mjs';
import { hostEnv, installVsix, startCodeServer } from './codeServer.mjs';
import { forwardConsole } from './consoleLines.mjs';
import { ensureCodeServer } from './install.mjs';
import { createRunDirs } from './tempDirs.mjs';

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * How long the workbench may take to show after the page is opened: a bound for a hung start, not a speed.
 * Playwright's default of 30 s for page.goto ran out on a machine at load 15-77, where serving and parsing
 * the workbench's scripts alone took longer.
 */
const WORKBENCH_MS = 5 * 60 * 1000;
/**
 * User settings of a run with workspace trust on: the folder opens in Restricted Mode with no
 * modal prompt (VS Code skips the startup prompt when it is "never"; the banner is not modal).
 */
const WORKSPACE_TRUST_SETTINGS = {
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'never',
};
const SIGNAL_CODES = { SIGINT: 130, SIGTERM: 143 };

/** Saves a PNG of the page; for hooks that want pictures mid-test. */
export async function screenshot(page, file) {
    mkdirSync(resolve(file, '..'), { recursive: true });
    await page.screenshot({ path: file });
    return file;
}

/**
 * @param {object} opts
 * @param {string} [opts.extensionDevelopmentPath] folder of the extension under development
 * @param {string[]} [opts.extraDevelopmentPaths] more extension folders to load in development mode (code-server loads only one)
 * @param {string[]} [opts.extraExtensions] unpacked extension folders installed into the run's extensions folder (test fixtures)
 * @param {string} [opts.extensionTestsPath] module exporting run(); without it `onPage` decides the result
 * @param {string} [opts.workspace] folder to open (default: an empty temp folder)
 * @param {Record<string,string>} [opts.env] extra environment for the extension host
 * @param {string} [opts.installVsix] .vsix installed into the run's extensions folder first
 * @param {number} [opts.timeoutMs] limit for the run after the install, default 10 minutes
 * @param {string} [opts.screenshotDir] where to save workbench-final.png
 * @param {string} [opts.logsDir] where to save the logs passed to codeAutomationExit
 * @param {(page, ctx) => Promise<number|void>} [opts.onPage] runs with the Playwright page once it loaded
 * @param {object} [opts.settings] extra user settings
 * @param {{ width: number, height: number }} [opts.viewport] the page's size in CSS pixels, default 1400×900
 * @param {boolean} [opts.workspaceTrust] keep workspace trust on: the workspace opens untrusted (Restricted Mode)
 * @param {(line: string) => void} [opts.log] output sink, default stdout
 * @param {boolean} [opts.verbose] also print code-server's own log
 * @returns {Promise<number>} 0 when the suite passed
 */
export async function runVsCodeTests(opts) {
    const log = opts.log ?? ((line) => process.stdout.write(`${line}\n`));
    checkOptions(opts);
    opts = { ...opts, verbose: opts.verbose ?? process.env.MCP_TASKS_VSCODE_VERBOSE === '1' };
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const cleanups = createCleanupStack();
    const serverLog = [];
    let settle;
    const outcome = new Promise((r) => (settle = r));
    const onSignal = (signal) => settle({ code: SIGNAL_CODES[signal] ?? 1, reason: `received ${signal}`, quiet: true });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // The limit starts after the install: a first run spends minutes compiling it.
    let timer;
    let finished = false;
    /** When the limit runs out (ms since the epoch), once armed: the suite is told, to report before it. */
    let deadline;
    const armTimeout = () => {
        if (!finished) {
            deadline = Date.now() + timeoutMs;
            timer = setTimeout(() => settle({ code: 1, reason: `timed out after ${timeoutMs} ms` }), timeoutMs);
        }
        return deadline;
    };

    const startedAt = Date.now();
    let page;
    const started = startSession(opts, { log, cleanups, serverLog, settle, armTimeout }).then((p) => (page = p));
    started.catch((error) => settle({ code: 1, reason: error.stack ?? String(error) }));
    const result = await outcome;

    finished = true;
    clearTimeout(timer);
    // From here on anything startSession still creates is stopped as soon as it exists;
    // give it a moment to get there so nothing outlives us.
    cleanups.close();
    await Promise.race([started.catch(() => {}), delay(30_000, undefined, { ref: false })]);
    if (result.reason) {
        log(`[runner] failed: ${result.reason}`);
        // code-server's own log explains crashes and hangs; after Ctrl-C it is just noise.
        if (!opts.verbose && !result.quiet && serverLog.length > 0) {
            log(`[runner] last code-server output:\n${serverLog.join('\n')}`);
        }
    }
    if (page && opts.screenshotDir) {
        const file = await screenshot(page, join(resolve(opts.screenshotDir), 'workbench-final.png')).catch(() => undefined);
        if (file) {
            log(`[runner] screenshot: ${file}`);
        }
    }
    await cleanups.runAll((error) => log(`[runner] cleanup: ${error.message}`));
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    log(`[runner] exit code ${result.code} after ${elapsed(startedAt)}`);
    return result.code;
}

/**
 * The workbench runs extensionTestsPath only in extension-development mode, which
 * only an extensionDevelopmentPath turns on. Testing an installed .vsix alone
 * therefore points it at an empty folder; without one the suite silently never
 * starts and the run times out.
 */
function developmentPath(opts, dirs) {
    if (opts.extensionDevelopmentPath) {
        return resolve(opts.extensionDevelopmentPath);
    }
    return opts.extensionTestsPath ? dirs.noDevExtension : undefined;
}

/** Wrong paths would otherwise show up only as a suite that never starts or a timeout. */
function checkOptions(opts) {
    if (!opts.extensionTestsPath && !opts.onPage) {
        throw new Error('runVsCodeTests needs extensionTestsPath or onPage');
    }
    const paths = {
        extensionDevelopmentPath: opts.extensionDevelopmentPath,
        installVsix: opts.installVsix,
        workspace: opts.workspace,
        // The host loads it like require() does, so the .js may be left off.
        extensionTestsPath: opts.extensionTestsPath && [opts.extensionTestsPath, `${opts.extensionTestsPath}.js`].find((p) => existsSync(p)),
    };
    for (const [name, path] of Object.entries(paths)) {
        if (opts[name] && !(path && existsSync(path))) {
            throw new Error(`${name} does not exist: ${opts[name]}`);
        }
    }
}

function elapsed(since) {
    return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Starts code-server and the page; resolves with the page once the workbench loads. */
async function startSession(opts, { log, cleanups, serverLog, settle, armTimeout }) {
    const host = await ensureCodeServer();
    const deadline = armTimeout();
    const startedAt = Date.now();
    const { dirs, remove } = createRunDirs({ settings: { ...(opts.workspaceTrust ? WORKSPACE_TRUST_SETTINGS : {}), ...opts.settings } });
    await cleanups.add(async () => {
        if (opts.logsDir && existsSync(join(dirs.userData, 'logs'))) {
            // The server side's logs (remote extension host, agent) vanish with the temp folder.
            cpSync(join(dirs.userData, 'logs'), join(resolve(opts.logsDir), 'server'), { recursive: true });
        }
        remove();
    });
    const env = { ...hostEnv({ nodeBin: host.nodeBin, xdg: dirs.xdg }), TMPDIR: dirs.tmp };
    if (opts.installVsix) {
        log(`[runner] installing ${opts.installVsix}`);
        await installVsix({ host, env, vsix: resolve(opts.installVsix), extensionsDir: dirs.extensions, userDataDir: dirs.userData });
    }
    // Unpacked fixture extensions: VS Code scans the extensions folder for folders named publisher.name-version.
    for (const folder of opts.extraExtensions ?? []) {
        const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
        cpSync(folder, join(dirs.extensions, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
    }
    const server = await startCodeServer({
        host,
        env,
        userDataDir: dirs.userData,
        extensionsDir: dirs.extensions,
        workspaceTrust: opts.workspaceTrust,
        log: (line) => {
            if (opts.verbose) {
                log(`[code-server] ${line}`);
            }
            serverLog.push(line);
            serverLog.splice(0, serverLog.length - 100);
        },
    });
    await cleanups.add(server.stop);
    log(`[runner] code-server listening on port ${server.port} after ${elapsed(startedAt)}`);
    server.child.on('exit', (code, signal) => settle({ code: 1, reason: `code-server exited (${signal ?? code})` }));

    const browser = await launchChromium({ executablePath: opts.chromiumPath, home: dirs.chromiumHome });
    await cleanups.add(() => browser.close());
    browser.on('disconnected', () => settle({ code: 1, reason: 'chromium disconnected' }));
    const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
    const forwarder = forwardConsole(page, log, opts.verbose);
    await cleanups.add(() => forwarder.drain());
    // Must be registered before the page loads: the workbench looks the function up
    // when the test run ends, and exposeFunction only reaches documents loaded after it.
    await page.exposeFunction('codeAutomationExit', (code, logs) => {
        const saved = saveAutomationLogs(logs, opts.logsDir && resolve(opts.logsDir));
        if (saved > 0) {
            forwarder.print(`[runner] saved ${saved} browser log files to ${opts.logsDir}`);
        }
        settle({ code: Number.isInteger(code) ? code : 1 });
    });
    page.on('crash', () => settle({ code: 1, reason: 'page crashed' }));

    const workspace = resolve(opts.workspace ?? dirs.workspace);
    const url = workbenchUrl({
        port: server.port,
        workspace,
        extensionDevelopmentPath: developmentPath(opts, dirs),
        extraDevelopmentPaths: (opts.extraDevelopmentPaths ?? []).map((path) => resolve(path)),
        extensionTestsPath: opts.extensionTestsPath && resolve(opts.extensionTestsPath),
        // The pass's deadline, for a suite that reports what it was doing before the limit cuts it off (integration/index.ts).
        extensionEnvironment: opts.extensionTestsPath && deadline ? { ...opts.env, MCP_TASKS_PASS_DEADLINE: String(deadline) } : opts.env,
    });
    log(`[runner] opening ${url}`);
    // What the hook needs is the workbench drawn, not a page event: wait for that, as long as a loaded machine takes.
    await page.goto(url, { waitUntil: 'commit', timeout: WORKBENCH_MS });
    await page.locator('.monaco-workbench').first().waitFor({ state: 'attached', timeout: WORKBENCH_MS });
    log(`[runner] workbench page loaded after ${elapsed(startedAt)}`);
    if (opts.onPage) {
        runHook(opts, page, { port: server.port, workspace, url, dirs }, settle);
    }
    return page;
}

/**
 * Starts the UI hook alongside the suite. Without a suite, its return value is the
 * result. With one, the suite's end ends the run (and cuts the hook off); a hook
 * that throws before then fails the run.
 */
function runHook(opts, page, ctx, settle) {
    Promise.resolve()
        .then(() => opts.onPage(page, ctx))
        .then(
            (code) => {
                if (!opts.extensionTestsPath) {
                    settle({ code: Number.isInteger(code) ? code : 0 });
                }
            },
            (error) => settle({ code: 1, reason: `onPage failed: ${error.stack ?? error}` }),
        );
}

function parseCli(argv) {
    const { values } = parseArgs({
        args: argv,
        options: {
            'extension-dev-path': { type: 'string' },
            'tests-path': { type: 'string' },
            workspace: { type: 'string' },
            env: { type: 'string' },
            'install-vsix': { type: 'string' },
            'timeout-ms': { type: 'string' },
            'screenshot-dir': { type: 'string' },
            'logs-dir': { type: 'string' },
            'workspace-trust': { type: 'boolean' },
            verbose: { type: 'boolean' },
        },
    });
    if (!values['tests-path']) {
        throw new Error('--tests-path FILE is required');
    }
    return {
        extensionDevelopmentPath: values['extension-dev-path'],
        extensionTestsPath: values['tests-path'],
        workspace: values.workspace,
        env: values.env ? JSON.parse(values.env) : undefined,
        installVsix: values['install-vsix'],
        timeoutMs: values['timeout-ms'] ? Number(values['timeout-ms']) : undefined,
        screenshotDir: values['screenshot-dir'],
        logsDir: values['logs-dir'],
        workspaceTrust: values['workspace-trust'],
        verbose: values.verbose,
    };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    let opts;
    try {
        opts = parseCli(process.argv.slice(2));
    } catch (error) {
        process.stderr.write(`${error.message}\nusage: node run.mjs --extension-dev-path DIR --tests-path FILE [--workspace DIR] [--env JSON] [--install-vsix FILE] [--timeout-ms N] [--screenshot-dir DIR] [--logs-dir DIR] [--workspace-trust] [--verbose]\n`);
        process.exit(2);
    }
    // process.exit, not exitCode: everything we started is already stopped, and a
    // stray handle must not keep CI waiting.
    runVsCodeTests(opts).then(
        (code) => process.exit(code),
        (error) => {
            process.stderr.write(`${error.message}\n`);
            process.exit(1);
        },
    );
}
