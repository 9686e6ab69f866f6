// A server that wraps others serves their tools and the user's commands, never the demonstration
// tools (the server leaves them out: they would only be in the way). The Demo Tools setting cannot
// show that, so when the user turned it on themselves, they are told why the tools are not there.
import * as vscode from 'vscode';
import type { ConfigWatcher } from '../config';
import { Settings, SETTINGS_SECTION } from '../constants';

/** Whether the user set `mcpTasks.demoTools` to true in some scope (the default alone does not count). */
function demoToolsAskedFor(): boolean {
    const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<boolean>(Settings.demoTools);
    return [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].includes(true);
}

/** The notice's words; exported for the suite, which compares what the Notifications Center shows. */
export function demoToolsNoticeText(): string {
    return vscode.l10n.t(
        'MCP Tasks offers no demonstration tools while it wraps other MCP servers, although Demo Tools is on: it then serves the wrapped servers\' tools and your commands only. Remove the servers from mcpTasks.wrap to get the demonstration tools back.',
    );
}

/** Tells the user once each time wrapping starts (or Demo Tools is turned on while wrapping), with Open Settings on mcpTasks.wrap. */
export function watchDemoToolsWhileWrapping(config: ConfigWatcher): vscode.Disposable {
    let told = false;
    const check = () => {
        const hidden = config.current.wrap !== undefined && config.current.demoTools && demoToolsAskedFor();
        if (hidden && !told) {
            const open = vscode.l10n.t('Open Settings');
            void vscode.window.showInformationMessage(demoToolsNoticeText(), open).then(choice => {
                if (choice === open) {
                    void vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${Settings.wrap}`);
                }
            });
        }
        told = hidden;
    };
    check();
    return config.onDidChangeLaunchSettings(check);
}
