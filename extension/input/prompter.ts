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
    /** Gets the form's prompt as soon as it exists, so it can be brought back (Respond). */
    onPrompt?(prompt: PendingPrompt): void;
}

/** Answers `elicitation/create`. Never hangs: a form we cannot show is declined with a warning. */
export async function answerElicitation(params: ElicitRequest['params'], { signal, clientName, onPrompt }: ElicitationContext): Promise<ElicitResult> {
    if (params.mode === 'url') {
        return answerUrl(params, signal, clientName);
    }
    const plan = planFromSchema(params.requestedSchema);
    if (!plan.ok) {
        void vscode.window.showWarningMessage(`${clientName} asked for input that MCP Tasks cannot show, so it was declined. ${plan.error}`);
        return { action: 'decline' };
    }
    const prompt = new PendingPrompt(plan.steps, { heading: `${clientName}: ${params.message}`, allowDecline: true, signal });
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
        void vscode.window.showWarningMessage(`${clientName} asked MCP Tasks to open a link that is not a web page (${params.url}), so it was declined.`);
        return { action: 'decline' };
    }
    const choice = await untilAborted(
        vscode.window.showInformationMessage(
            `${params.message}\n\nOpen ${url.host}?`,
            { modal: true, detail: `Requested by ${clientName}. This opens ${url.href} in your browser.` },
            'Open',
            'Decline',
        ),
        signal,
    );
    if (signal.aborted || choice === undefined) {
        return { action: 'cancel' };
    }
    if (choice === 'Decline') {
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
        void vscode.window.showErrorMessage(`MCP Tasks cannot ask for the arguments of ${label}. ${plan.error}`);
        return undefined;
    }
    const outcome = await new PendingPrompt(plan.steps, { heading: label, allowDecline: false, signal }).result;
    return outcome.action === 'accept' ? outcome.content : undefined;
}
