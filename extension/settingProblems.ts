// Settings whose value MCP Tasks cannot use are said once, in words, with the setting to fix: a
// value read as its default without a word looks like a setting that does nothing.
import * as vscode from 'vscode';
import { Settings, SETTINGS_SECTION } from './constants';
import { showProblemAt } from './errorNotice';

const TRANSPORTS = ['http', 'stdio'];

/** What is wrong with a `mcpTasks.transport` value, and what is used instead; undefined when it is fine. */
export function transportProblem(value: unknown): string | undefined {
    if (value === undefined || (typeof value === 'string' && TRANSPORTS.includes(value))) {
        return undefined;
    }
    return vscode.l10n.t({
        message: 'MCP Tasks does not know the transport {0} in the setting {1}: it can be "http" or "stdio". It uses "http" until the setting is fixed.',
        args: [JSON.stringify(value), `${SETTINGS_SECTION}.${Settings.transport}`],
        comment: ['{0} is the value as written, {1} the setting\'s id'],
    });
}

/** Shows transportProblem now and on each change of the setting, once per distinct value. */
export function watchTransportSetting(): vscode.Disposable {
    let shown: string | undefined;
    const check = () => {
        const problem = transportProblem(vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown>(Settings.transport));
        if (problem !== undefined && problem !== shown) {
            void showProblemAt(problem, { setting: `${SETTINGS_SECTION}.${Settings.transport}` });
        }
        shown = problem;
    };
    check();
    return vscode.workspace.onDidChangeConfiguration(event => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.transport}`)) {
            check();
        }
    });
}
