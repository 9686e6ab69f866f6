import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { TASK_TOOL_META_KEY } from '@mcp-tasks/server/contract';
import type { CommandDeps } from './commands';
import { Commands } from './constants';
import { collectToolArguments } from './input/prompter';
import type { RunMode, RunToolPreset } from './runToolPreset';
import { statusText, taskLabel } from './tasks/taskView';

/** MCP Tasks: Run Tool… — pick a tool, fill its arguments, run it as a task or wait for it. */
export async function runTool(deps: CommandDeps, preset?: RunToolPreset): Promise<string | undefined> {
    await deps.server.ready();
    const tools = await deps.owner.listTools();
    // The task tools are a model's way to do what this command does for a person.
    const tool = preset ? tools.find(t => t.name === preset.name) : await pickTool(tools.filter(t => t._meta?.[TASK_TOOL_META_KEY] !== true), deps.runsCommand);
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
        const taskId = await deps.owner.startTask(tool.name, args);
        deps.startedHere.add(taskId);
        await vscode.commands.executeCommand(Commands.focusTasks);
        return taskId;
    }
    const title = tool.title ?? tool.name;
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Running {0}…', title) }, () => deps.owner.callTool(tool.name, args));
    await deps.results.show(undefined, taskLabel({ toolName: tool.name }), statusText(result.isError ? 'failed' : 'completed'), result);
    return undefined;
}

/** The user's own commands first (the reason they declared them), then the server's tools; each in the server's order. */
async function pickTool(tools: Tool[], runsCommand: (toolName: string) => boolean = () => false): Promise<Tool | undefined> {
    const ordered = [...tools.filter(tool => runsCommand(tool.name)), ...tools.filter(tool => !runsCommand(tool.name))];
    const items = ordered.map(tool => ({
        label: tool.title ?? tool.name,
        description: `${tool.name} · ${howItRuns(tool)}`,
        // A detail shows one line: a description's line breaks would show as ⏎.
        detail: tool.description?.replace(/\s*\n\s*/g, ' '),
        tool,
    }));
    const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('MCP Tasks: Run Tool'), placeHolder: vscode.l10n.t('Which tool?'), matchOnDescription: true, matchOnDetail: true });
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
            { label: `$(list-tree) ${vscode.l10n.t('Run as task')}`, description: vscode.l10n.t('watch and cancel it in the MCP Tasks view'), mode: 'task' as const },
            { label: `$(watch) ${vscode.l10n.t('Wait for the result')}`, description: vscode.l10n.t('run it directly and open the result'), mode: 'wait' as const },
        ],
        { title: vscode.l10n.t({ message: 'Run {0}', args: [tool.title ?? tool.name], comment: ['{0} is the title of a tool'] }), placeHolder: vscode.l10n.t('How should it run?') },
    );
    return picked?.mode;
}
