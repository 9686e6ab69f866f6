/** The chat prompt that picks up a background task once it ended (no vscode import: unit-tested). */
import { statusText, taskLabel, type TaskView } from '../tasks/taskView';

const MAX_SUMMARY = 300;

/** Names the task, its tool and outcome, and tells the model how to read the full result. */
export function continueInChatPrompt(task: Pick<TaskView, 'taskId' | 'toolName' | 'keyArgument' | 'status' | 'statusMessage'>): string {
    const message = task.statusMessage ? ` (${clip(task.statusMessage)})` : '';
    return `The background task ${task.taskId} (${taskLabel(task)}) ${statusText(task.status)}${message}. Get its result with get_task and continue from there.`;
}

function clip(text: string): string {
    const line = text.replace(/\s+/g, ' ').trim();
    return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}
