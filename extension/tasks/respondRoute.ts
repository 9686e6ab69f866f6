/** Where Respond takes the user for a task that waits on an answer (no vscode import: unit-tested). */
import { clientKind, type TaskView } from './taskView';

export type RespondRoute =
    /** This extension asks (its own client's task, or one whose client cannot): show that prompt again. */
    | 'prompt'
    /** VS Code's own MCP client asks in the chat the call came from. */
    | 'chat'
    /**
     * VS Code's own MCP client asks in a notification with a Respond button; after a few seconds
     * the toast hides in the Notifications Center, where the question waits.
     */
    | 'notifications'
    /** Another client asks in its own window (or this extension's prompt is not up yet): nothing here to open. */
    | 'elsewhere';

/**
 * Decided from what the server says of the task: who started it, and whether its call came from
 * a chat (VS Code shows the question where the call came from: in that chat, otherwise as a
 * notification). An open prompt of this extension wins: then this extension is the one asking.
 */
export function respondRoute(view: Pick<TaskView, 'clientName' | 'chat'>, hasOwnPrompt: boolean, ownClientName: string): RespondRoute {
    if (hasOwnPrompt) {
        return 'prompt';
    }
    if (clientKind(view.clientName, ownClientName) !== 'copilot') {
        return 'elsewhere';
    }
    return view.chat ? 'chat' : 'notifications';
}
