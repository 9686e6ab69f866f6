import * as vscode from 'vscode';
import { answerElicitation } from '../input/prompter';
import type { SamplingResponder } from '../lm/sampling';
import type { PendingInputs, Reopenable } from '../tasks/pendingInputs';
import type { TaskModel } from '../tasks/taskModel';
import { taskLabel } from '../tasks/taskView';
import { OWN_CLIENT_NAME, type InputHandlers } from './ownerConnection';

/**
 * The server sends our connection the input requests of tasks we started, and of tasks whose
 * own client cannot answer (it declared no elicitation or sampling). Name the asker either way.
 */
export function createInputHandlers(model: TaskModel, pending: PendingInputs, sampling: SamplingResponder): InputHandlers {
    const askerOf = (taskId: string | undefined): string => {
        const view = taskId ? model.get(taskId) : undefined;
        if (!view) {
            return 'MCP Tasks';
        }
        return view.clientName && view.clientName !== OWN_CLIENT_NAME
            ? vscode.l10n.t({ message: '{0} (for {1})', args: [taskLabel(view), view.clientName], comment: ['{0} is a task, {1} the MCP client it runs for'] })
            : taskLabel(view);
    };
    return {
        elicit: async (params, { signal, taskId }) => {
            let registration: { dispose(): void } | undefined;
            try {
                // Respond on this task's row brings back this task's own prompt, not whichever is on screen.
                // Without a task there is no row to Respond from, so that prompt is answered when hidden.
                const onPrompt = taskId ? (prompt: Reopenable) => (registration = pending.set(taskId, prompt)) : undefined;
                return await answerElicitation(params, { signal, clientName: askerOf(taskId), onPrompt });
            } finally {
                registration?.dispose();
            }
        },
        createMessage: (params, { signal, taskId }) => {
            const view = taskId ? model.get(taskId) : undefined;
            // Respond on the task's row or the status bar brings its consent question back.
            const onQuestion = taskId ? (question: Reopenable) => pending.set(taskId, question) : undefined;
            return sampling.createMessage(params, { signal, clientName: view?.clientName ?? OWN_CLIENT_NAME, asker: askerOf(taskId), tool: view?.toolName, onQuestion });
        },
    };
}
