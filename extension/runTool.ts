import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { TASK_TOOL_META_KEY } from '@mcp-tasks/server/contract';
import type { CommandDeps } from './commandDeps';
import { Commands } from './constants';
import { collectToolArguments, PendingPrompt } from './input/prompter';
import type { RunMode, RunToolPreset } from './runToolPreset';
import { statusText, taskLabel, toolTitle } from './tasks/taskView';
import { pickerDetail } from './views/spokenRow';
import { MANAGE_TRUST_COMMAND, waitingForTrustText } from './views/trustNotice';
import { waitForCall, waitForTask } from './waitForResult';

/**
 * MCP Tasks: Run Tool… — pick a tool, fill its arguments, run it as a task or wait for it. Returns
 * the task's id when it ran as one (waited for or not).
 */
export async function runTool(deps: CommandDeps, preset?: RunToolPreset): Promise<string | undefined> {
    await deps.server.ready();
    const tools = await deps.owner.listTools();
    // The task tools are a model's way to do what this command does for a person.
    const tool = preset ? tools.find(t => t.name === preset.name) : await pickTool(tools.filter(t => t._meta?.[TASK_TOOL_META_KEY] !== true), deps.runsCommand, deps.waitingForTrust?.() ?? 0);
    if (!tool) {
        if (preset) {
            throw new Error(vscode.l10n.t('the server has no tool named {0}', preset.name));
        }
        return undefined;
    }
    const args = preset?.args ?? (await collectToolArguments({ name: tool.name, title: tool.title, inputSchema: tool.inputSchema }));
    if (!args) {
        return undefined;
    }
    const support = tool.execution?.taskSupport ?? 'forbidden';
    const mode = preset?.mode ?? (support === 'required' ? 'task' : support === 'forbidden' ? 'wait' : await pickMode(tool));
    if (!mode) {
        return undefined;
    }
    if (mode === 'task') {
        // The Tasks view first, then the task: a tool that asks at once (confirm_delete) opens its
        // question after, and the question takes the keyboard as it opens. Focusing the view once
        // the task had started took the focus from a question already on screen, and handing it
        // back afterwards left a moment in which the user's Escape or Enter went to the view.
        // An empty view shows its Welcome buttons instead of rows: the focus lands on one, and the first
        // row replaces it, leaving the keyboard nowhere (on the page's body). The new row takes it then.
        const welcomeShown = deps.model.all().length === 0;
        await vscode.commands.executeCommand(Commands.focusTasks);
        // Another task's question may have opened as Run Tool's pickers closed: it keeps the keyboard.
        await PendingPrompt.focusOnScreen();
        const taskId = await deps.owner.startTask(tool.name, args);
        deps.startedHere.add(taskId);
        if (welcomeShown && !PendingPrompt.asking) {
            await deps.focusRow?.(taskId);
        }
        return taskId;
    }
    const title = tool.title ?? toolTitle(tool.name);
    if (support !== 'forbidden') {
        return waitForTask(deps, tool.name, title, args);
    }
    await waitForCall(deps, tool.name, title, taskLabel({ toolName: tool.name }), args, isError => statusText(isError ? 'failed' : 'completed'));
    return undefined;
}

/**
 * The user's own commands first (the reason they declared them), then the server's tools; each in the
 * server's order. In Restricted Mode a first row says how many commands wait for trust and opens the
 * Workspace Trust editor.
 */
async function pickTool(tools: Tool[], runsCommand: (toolName: string) => boolean = () => false, waitingForTrust = 0): Promise<Tool | undefined> {
    const ordered = [...tools.filter(tool => runsCommand(tool.name)), ...tools.filter(tool => !runsCommand(tool.name))];
    const trustRow: (vscode.QuickPickItem & { tool?: Tool })[] =
        waitingForTrust > 0 ? [{ label: waitingForTrustText(waitingForTrust), iconPath: new vscode.ThemeIcon('shield'), description: vscode.l10n.t('Manage Workspace Trust') }] : [];
    const items: (vscode.QuickPickItem & { tool?: Tool })[] = ordered.map(tool => ({
        label: tool.title ?? toolTitle(tool.name),
        description: `${tool.name} · ${howItRuns(tool)}`,
        // One line, one sentence: a detail shows one line, and the entry is read whole to a screen reader.
        detail: pickerDetail(tool.description),
        tool,
    }));
    const picked = await vscode.window.showQuickPick([...trustRow, ...items], { title: vscode.l10n.t('MCP Tasks: Run Tool'), placeHolder: vscode.l10n.t('Which tool?'), matchOnDescription: true, matchOnDetail: true });
    if (picked && !picked.tool) {
        await vscode.commands.executeCommand(MANAGE_TRUST_COMMAND);
    }
    return picked?.tool;
}

/** How a tool can run, after its name in the tool picker. */
function howItRuns(tool: Tool): string {
    switch (tool.execution?.taskSupport) {
        case 'required':
            return vscode.l10n.t({ message: 'task', comment: ['How a tool runs: only as a background task'] });
        case 'optional':
            return vscode.l10n.t({ message: 'task or direct', comment: ['How a tool runs: as a background task, or directly with the result awaited'] });
        default:
            return vscode.l10n.t({ message: 'direct', comment: ['How a tool runs: directly, the result awaited'] });
    }
}

async function pickMode(tool: Tool): Promise<RunMode | undefined> {
    const picked = await vscode.window.showQuickPick(
        [
            { label: vscode.l10n.t('Run as task'), iconPath: new vscode.ThemeIcon('list-tree'), description: vscode.l10n.t('watch and cancel it in the MCP Tasks view'), mode: 'task' as const },
            { label: vscode.l10n.t('Wait for the result'), iconPath: new vscode.ThemeIcon('watch'), description: vscode.l10n.t('follow it in a notification and open the result'), mode: 'wait' as const },
        ],
        { title: vscode.l10n.t({ message: 'Run {0}', args: [tool.title ?? toolTitle(tool.name)], comment: ['{0} is the title of a tool'] }), placeHolder: vscode.l10n.t('How should it run?') },
    );
    return picked?.mode;
}
