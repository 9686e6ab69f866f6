// Runs the integration suite inside a real VS Code (code-server + headless Chromium):
// once against the development folder, then against the packaged .vsix as a user installs it,
// then the window-reload suite in a host of its own (it reloads its window), then the trust suite
// in a host with workspace trust on, whose folder opens in Restricted Mode,
// then a fresh walk of the README's journeys at VS Code's default window size (readmeWalk.test.ts).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { runVsCodeTests } from '../vscode-host/run.mjs';
import { createUiDriver } from './uiDriver.mjs';
import { createApprovalCheck, createWalkDriver } from './walkDriver.mjs';

const root = resolve(import.meta.dirname, '../..');
const suite = resolve(root, 'out/test/integration/index.js');
const workspace = resolve(root, 'test/integration/fixtures/workspace');
const untrusted = resolve(root, 'test/integration/fixtures/untrusted');
const walkFolder = resolve(root, 'test/integration/fixtures/walk');
const screenshotDir = resolve(root, 'test-results/screenshots');
const only = process.argv.slice(2).find(a => a.startsWith('--only='))?.slice('--only='.length);

// A development path nested inside another is not loaded, so the fixture model runs from a copy.
const fixtures = mkdtempSync(resolve(tmpdir(), 'mcp-tasks-fixtures-'));
const fakeModel = resolve(fixtures, 'fake-model');
cpSync(resolve(root, 'test/integration/fixtures/fake-model'), fakeModel, { recursive: true });
process.on('exit', () => rmSync(fixtures, { recursive: true, force: true }));

const runs = [];
if (!only || only === 'dev') {
    runs.push({
        name: 'development folder',
        opts: {
            extensionDevelopmentPath: root,
            extraExtensions: [fakeModel],
            extensionTestsPath: suite,
            workspace,
            screenshotDir,
            // MCP_TASKS_UI_DIR: where the suite sees what the UI driver has done (util.ts uiArtifact).
            env: { MCP_TASKS_SUITE: process.env.MCP_TASKS_SUITE ?? '', MCP_TASKS_UI_DIR: screenshotDir },
            onPage: createUiDriver(screenshotDir),
            // The fixture workspace sits inside this repository: keep Git's prompt out of the screenshots.
            settings: { 'git.openRepositoryInParentFolders': 'never' },
            // Every suite runs in this pass: 530–560 s in a full `npm test` beside the other lanes, where the
            // default 10 min limit (a guard against a hung workbench) stopped the last suite at 600 s.
            timeoutMs: 15 * 60 * 1000,
        },
    });
}
if (!only || only === 'vsix') {
    const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
    const vsix = resolve(root, `mcp-tasks-${version}.vsix`);
    if (!existsSync(vsix)) {
        console.error(`[integration] ${vsix} is missing: run npm run package first`);
        process.exit(1);
    }
    runs.push({
        name: 'installed .vsix',
        opts: {
            installVsix: vsix,
            extensionTestsPath: suite,
            workspace,
            env: { MCP_TASKS_SUITE: 'vsix', MCP_TASKS_UI_DIR: screenshotDir },
            // The details page is read as a user sees it; its images come from the repository's URL.
            onPage: createUiDriver(screenshotDir, undefined, { repository: { url: repositoryFilesUrl(), root } }),
            settings: { 'git.openRepositoryInParentFolders': 'never' },
        },
    });
}

if (!only || only === 'reload') {
    // The suite reloads its window and runs again after it, led by its note: no note from an earlier run.
    rmSync(resolve(screenshotDir, 'reload-kept-result.json'), { force: true });
    runs.push({
        name: 'window reload',
        opts: {
            extensionDevelopmentPath: root,
            extensionTestsPath: suite,
            workspace,
            env: { MCP_TASKS_SUITE: 'reload', MCP_TASKS_UI_DIR: screenshotDir },
            onPage: createUiDriver(screenshotDir),
            settings: { 'git.openRepositoryInParentFolders': 'never' },
        },
    });
}

if (!only || only === 'trust') {
    runs.push({
        name: 'untrusted workspace',
        opts: {
            extensionDevelopmentPath: root,
            extensionTestsPath: suite,
            workspace: untrusted,
            workspaceTrust: true,
            env: { MCP_TASKS_SUITE: 'trust', MCP_TASKS_UI_DIR: screenshotDir },
            // The driver grants trust in the Workspace Trust editor when the suite asks.
            onPage: createUiDriver(screenshotDir),
            settings: {
                'git.openRepositoryInParentFolders': 'never',
                // A user-level command tool: served whether or not the folder is trusted.
                'mcpTasks.commands': [{ name: 'user_echo', description: 'Prints a line; declared in user settings.', command: ['node', '-e', "console.log('user_echo ran')"] }],
            },
        },
    });
}

if (!only || only === 'trust') {
    runs.push({
        name: 'untrusted multi-root workspace',
        opts: {
            extensionDevelopmentPath: root,
            extensionTestsPath: suite,
            workspace: resolve(root, 'test/integration/fixtures/untrusted-multiroot/multiroot.code-workspace'),
            workspaceTrust: true,
            env: { MCP_TASKS_SUITE: 'trustMultiRoot', MCP_TASKS_UI_DIR: screenshotDir },
            onPage: createUiDriver(screenshotDir),
            settings: { 'git.openRepositoryInParentFolders': 'never' },
        },
    });
}

if (!only || only === 'walk') {
    const walkShots = resolve(screenshotDir, 'walk');
    runs.push({
        name: 'README walk',
        opts: {
            extensionDevelopmentPath: root,
            extraExtensions: [fakeModel],
            extensionTestsPath: suite,
            workspace: walkFolder,
            // VS Code's default size for a window opened on a folder (DEFAULT_WORKSPACE_WINDOW_SIZE in 1.139);
            // its sidebar then opens at its default 300 px.
            viewport: { width: 1440, height: 900 },
            env: { MCP_TASKS_SUITE: 'readmeWalk', MCP_TASKS_UI_DIR: walkShots },
            onPage: createWalkDriver(walkShots),
            settings: { 'git.openRepositoryInParentFolders': 'never' },
        },
    });
}

if (only === 'approval') {
    runs.push({
        name: "VS Code's tool approval dialog",
        opts: {
            extensionDevelopmentPath: root,
            extraExtensions: [resolve(root, 'test/integration/fixtures/tool-caller')],
            // No extensionTestsPath: in a window that runs extension tests VS Code answers every dialog itself.
            workspace: walkFolder,
            viewport: { width: 1440, height: 900 },
            onPage: createApprovalCheck(resolve(screenshotDir, 'walk')),
            settings: { 'git.openRepositoryInParentFolders': 'never' },
        },
    });
}

/** Where vsce points the packaged README's relative links: the repository's files at HEAD. */
function repositoryFilesUrl() {
    const { repository } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
    return `${repository.url.replace(/\.git$/, '')}/raw/HEAD/`;
}

let failed = 0;
for (const run of runs) {
    const started = Date.now();
    console.log(`[integration] ${run.name}: starting`);
    const code = await runVsCodeTests(run.opts);
    console.log(`[integration] ${run.name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${Math.round((Date.now() - started) / 1000)} s`);
    failed += code === 0 ? 0 : 1;
}
console.log(`${runs.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
