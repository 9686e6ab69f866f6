import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { TASK_TOOL_META_KEY } from '@mcp-tasks/server/contract';
import type { CommandDeps } from './commands';
import { Commands } from './constants';
import { collectToolArguments } from './input/prompter';
import { taskLabel } from './tasks/taskView';

type Mode = 'task' | 'wait';

export interface RunToolPreset {
    name: string;
    args?: Record<string, unknown>;
    mode?: Mode;
}

/** MCP Tasks: Run Tool… — pick a tool, fill its arguments, run it as a task or wait for it. */
export async function runTool(deps: CommandDeps, preset?: RunToolPreset): Promise<string | undefined> {
    await deps.server.ready();
    const tools = await deps.owner.listTools();
    // The task tools are a model's way to do what this command does for a person.
    const tool = preset ? tools.find(t => t.name === preset.name) : await pickTool(tools.filter(t => t._meta?.[TASK_TOOL_META_KEY] !== true));
    if (!tool) {
        if (preset) {
            throw new Error(`the server has no tool named ${preset.name}`);
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
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Running ${title}…` }, () => deps.owner.callTool(tool.name, args));
    await deps.results.show(`call-${Date.now()}`, taskLabel({ toolName: tool.name }), result.isError ? 'failed' : 'completed', result);
    return undefined;
}

async function pickTool(tools: Tool[]): Promise<Tool | undefined> {
    const items = tools.map(tool => ({
        label: tool.title ?? tool.name,
        description: `${tool.name} · ${tool.execution?.taskSupport === 'required' ? 'task' : tool.execution?.taskSupport === 'optional' ? 'task or direct' : 'direct'}`,
        detail: tool.description,
        tool,
    }));
    const picked = await vscode.window.showQuickPick(items, { title: 'MCP Tasks: Run Tool', placeHolder: 'Which tool?', matchOnDescription: true, matchOnDetail: true });
    return picked?.tool;
}

async function pickMode(tool: Tool): Promise<Mode | undefined> {
    const picked = await vscode.window.showQuickPick(
        [
            { label: '$(list-tree) Run as task', description: 'watch and cancel it in the MCP Tasks view', mode: 'task' as const },
            { label: '$(watch) Wait for the result', description: 'run it directly and open the result', mode: 'wait' as const },
        ],
        { title: `Run ${tool.title ?? tool.name}`, placeHolder: 'How should it run?' },
    );
    return picked?.mode;
}
