// The extension's answers to MCP elicitation (form and URL mode) and the argument
// collector for "Run Tool…". The form logic lives in schemaPlan (vscode-free) and
// PendingPrompt (the quick inputs); this file decides what to show and what to return.
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { PendingPrompt } from './pendingPrompt';
import { planFromSchema } from './schemaPlan';
import { untilAborted } from './untilAborted';

export { PendingPrompt, type PromptOutcome } from './pendingPrompt';

export interface ElicitationContext {
    signal: AbortSignal;
    /** Who is asking, as the user knows it; shown in titles and dialogs. */
    clientName: string;
    /**
     * Gets the form's prompt as soon as it exists, so it can be brought back (Respond). With it,
     * Escape or another quick input leaves the form waiting instead of answering 'cancel'.
     */
    onPrompt?(prompt: PendingPrompt): void;
}

/** Answers `elicitation/create`. Never hangs: a form we cannot show is declined with a warning. */
export async function answerElicitation(params: ElicitRequest['params'], { signal, clientName, onPrompt }: ElicitationContext): Promise<ElicitResult> {
    if (params.mode === 'url') {
        return answerUrl(params, signal, clientName);
    }
    const plan = planFromSchema(params.requestedSchema);
    if (!plan.ok) {
        void vscode.window.showWarningMessage(
            vscode.l10n.t({ message: '{0} asked for input that MCP Tasks cannot show, so it was declined. {1}', args: [clientName, plan.error], comment: ['{0} names who asked, {1} says why the form cannot be shown'] }),
        );
        return { action: 'decline' };
    }
    const prompt = new PendingPrompt(plan.steps, { heading: `${clientName}: ${params.message}`, allowDecline: true, signal, waitWhenHidden: onPrompt !== undefined });
    onPrompt?.(prompt);
    const outcome = await prompt.result;
    return outcome.action === 'accept' ? { action: 'accept', content: outcome.content } : { action: outcome.action };
}

/**
 * URL mode: the page opens only after the user consents in a modal that names the site's
 * host (punycode, so look-alike names show as such). Only http(s) is opened: a server must
 * not be able to hand VS Code a `command:` or `vscode:` link.
 */
async function answerUrl(params: Extract<ElicitRequest['params'], { mode: 'url' }>, signal: AbortSignal, clientName: string): Promise<ElicitResult> {
    let url: URL;
    try {
        url = new URL(params.url);
    } catch {
        url = new URL('invalid:');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        void vscode.window.showWarningMessage(vscode.l10n.t({ message: '{0} asked MCP Tasks to open a link that is not a web page ({1}), so it was declined.', args: [clientName, params.url], comment: ['{0} names who asked, {1} is the link'] }));
        return { action: 'decline' };
    }
    const open = vscode.l10n.t('Open');
    const decline = vscode.l10n.t('Decline');
    const choice = await untilAborted(
        vscode.window.showInformationMessage(
            `${params.message}\n\n${vscode.l10n.t({ message: 'Open {0}?', args: [url.host], comment: ['{0} is the host name of a web site'] })}`,
            { modal: true, detail: vscode.l10n.t({ message: 'Requested by {0}. This opens {1} in your browser.', args: [clientName, url.href], comment: ['{0} names who asked, {1} is the link'] }) },
            open,
            decline,
        ),
        signal,
    );
    if (signal.aborted || choice === undefined) {
        return { action: 'cancel' };
    }
    if (choice === decline) {
        return { action: 'decline' };
    }
    // false means the user backed out of VS Code's own "open external link" check.
    const opened = await vscode.env.openExternal(vscode.Uri.parse(url.href, true));
    return { action: opened ? 'accept' : 'cancel' };
}

/**
 * Asks for a tool's arguments from its inputSchema. Undefined means the user cancelled;
 * a schema we cannot show is reported to the user and also gives undefined.
 */
export async function collectToolArguments(tool: { name: string; title?: string; inputSchema: object }, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const plan = planFromSchema(tool.inputSchema);
    const label = tool.title ?? tool.name;
    if (!plan.ok) {
        void vscode.window.showErrorMessage(vscode.l10n.t({ message: 'MCP Tasks cannot ask for the arguments of {0}. {1}', args: [label, plan.error], comment: ['{0} is a tool, {1} says why its arguments cannot be asked for'] }));
        return undefined;
    }
    const outcome = await new PendingPrompt(plan.steps, { heading: label, allowDecline: false, signal }).result;
    return outcome.action === 'accept' ? outcome.content : undefined;
}
