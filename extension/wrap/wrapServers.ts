import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import { WORKSPACE_COMMANDS_FILE, parseWorkspaceFile } from '../commandTools/commandSources';
import { SETTINGS_SECTION, Settings } from '../constants';
import { showWrapProblem } from '../errorNotice';
import { Disposable } from '../lifecycle';
import type { ScopedLogger } from '../logger';
import { mergeWrap, problemText, type WrapSource } from './wrapSources';

/**
 * The MCP servers this window's server wraps: `mcpTasks.wrap` (user settings, local or Remote, and a trusted workspace's) and each
 * folder's `.vscode/mcp-tasks.json` "wrap" (trusted only), merged into one config. The server reads
 * it once, at start, so a change reaches it as a restart: `onDidChange` gives the new text to the
 * settings, where it counts as a launch setting, and each launch writes the text it launches with
 * (`launchFile`), so a restart still queued never finds a newer file, or none.
 */
export class WrapServers extends Disposable {
    /** The `--wrap-config` file, in the extension's storage, readable by this user only (it may hold tokens); removed on stop. */
    private readonly file: string;
    private current: string | undefined;
    private readonly shown = new Set<string>();
    /** Each workspace file's "wrap" as last read without an error: an edit half-way through restarts nothing. */
    private readonly lastGood = new Map<string, unknown>();
    private readonly changed = this.register(new vscode.EventEmitter<string | undefined>());
    /** The merged config changed: its new text, or undefined when nothing is wrapped any more. */
    readonly onDidChange = this.changed.event;

    constructor(
        storageDir: string,
        private readonly log: ScopedLogger,
        /** Fires whenever the workspace files may have changed (the command tools watch and poll them). */
        filesChanged: vscode.Event<void>,
    ) {
        super();
        this.file = join(storageDir, `wrap-${process.pid}.json`);
        this.update();
        const update = () => this.update();
        this.register(filesChanged(update));
        this.register(vscode.workspace.onDidGrantWorkspaceTrust(update));
        this.register(
            vscode.workspace.onDidChangeConfiguration(event => {
                if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.wrap}`)) {
                    update();
                }
            }),
        );
        this.register({ dispose: () => rmSync(this.file, { force: true }) });
    }

    /** The merged `{"servers": …}` the server is launched with; undefined when nothing is wrapped. */
    get text(): string | undefined {
        return this.current;
    }

    /** Reads every source again; fires when the merged config changed. */
    update(): void {
        const folders = (vscode.workspace.workspaceFolders ?? []).filter(folder => folder.uri.scheme === 'file').map(folder => folder.uri.fsPath);
        const merged = mergeWrap(this.sources(folders), vscode.workspace.isTrusted, { userHome: homedir(), env: process.env, pathSeparator: sep });
        if (merged.text === this.current) {
            return;
        }
        for (const problem of merged.problems) {
            const line = problemText(problem);
            this.log.warn(line);
            // An entry that is wrong gets one notification per distinct problem; waiting for trust or a replaced name is only logged.
            if (problem.entry !== undefined && !problem.message.startsWith('replaces') && !this.shown.has(line)) {
                this.shown.add(line);
                void showWrapProblem(line, problem.source.endsWith('mcp-tasks.json') ? { file: problem.source } : { setting: `${SETTINGS_SECTION}.${Settings.wrap}` });
            }
        }
        this.current = merged.text;
        this.log.info(`${merged.origins.size} wrapped server(s): ${[...merged.origins.keys()].join(', ') || 'none'}`);
        this.changed.fire(merged.text);
    }

    /** Writes `text` for a server about to be launched (or checked) with it: the file for --wrap-config, or none. */
    launchFile(text: string | undefined): string | undefined {
        if (text === undefined) {
            rmSync(this.file, { force: true });
            return undefined;
        }
        // Written whole and renamed into place: a server never reads half a file.
        const temp = `${this.file}.tmp`;
        writeFileSync(temp, text, { mode: 0o600 });
        renameSync(temp, this.file);
        return this.file;
    }

    private sources(folders: string[]): WrapSource[] {
        const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(Settings.wrap);
        // In a remote window, the user value is the local User settings' unless Remote settings set one.
        const sources: WrapSource[] = [
            { label: `user settings (${SETTINGS_SECTION}.${Settings.wrap})`, fromWorkspace: false, folder: folders[0], servers: inspected?.globalValue },
            // Like a folder's file: counted only in a trusted workspace (VS Code hides the value in Restricted Mode too).
            { label: `workspace settings (${SETTINGS_SECTION}.${Settings.wrap})`, fromWorkspace: true, folder: folders[0], servers: inspected?.workspaceValue },
        ];
        for (const folder of folders) {
            const label = join(folder, WORKSPACE_COMMANDS_FILE);
            let text: string;
            try {
                text = readFileSync(label, 'utf8');
            } catch {
                continue;
            }
            try {
                this.lastGood.set(label, parseWorkspaceFile(text, label).wrap);
            } catch {
                // Half-way through an edit (the command tools log it): keep what the file wrapped last.
            }
            sources.push({ label, fromWorkspace: true, folder, servers: this.lastGood.get(label) });
        }
        return sources;
    }
}
