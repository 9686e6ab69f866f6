import { z } from 'zod';
import { choseSafe, isConsent, safeConfirmSchema, type SafeConfirm } from '../tools/safeConfirm.js';
import { defineTool, textResult } from '../tools/types.js';

export const confirmDeleteTool = defineTool({
    name: 'confirm_delete',
    title: 'Demo: Confirm Delete',
    description:
        'Demonstration tool: asks the user, through a question in their editor, to confirm deleting the named file, and then deletes nothing (no file is touched, whatever the answer). ' +
        'Runs as a task that waits for the user\'s answer. Use it only to demonstrate or test questions asked during a task; ' +
        'do not call it when the user asks to delete a real file. ' +
        'If the user confirms it returns "Confirmed: would delete" and the file name, with "(demo: nothing deleted)"; otherwise "Deletion cancelled".',
    inputSchema: z.object({
        filename: z.string().min(1).max(1000).default('important.txt').describe('The file to delete, e.g. "notes/old-draft.md".'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'required',
    keyArgument: 'filename',
    demo: true,
    async run({ filename }, ctx) {
        const question = deleteQuestion(filename);
        const answer = await ctx.elicit({ mode: 'form', message: `Delete '${filename}'? This cannot be undone.`, requestedSchema: safeConfirmSchema(question) });
        const confirmed = isConsent(question, answer);
        // How the user answered, in words for the task's row (the result says the same of any answer but Delete):
        // choosing Keep is not declining the question, and the row says which of the two it was.
        ctx.conclude?.(confirmed ? 'Confirmed' : choseSafe(question, answer) ? 'Kept the file' : answer.action === 'cancel' ? 'Dismissed' : 'Declined');
        return textResult(confirmed ? `Confirmed: would delete '${filename}' (demo: nothing deleted)` : 'Deletion cancelled');
    },
});

/** Keep comes first and is the default, so Enter in any client keeps the file. */
export function deleteQuestion(filename: string): SafeConfirm {
    return {
        key: 'confirm',
        title: 'Delete the file',
        description: `Keep leaves '${filename}' as it is; Delete deletes it`,
        safe: { value: 'keep', title: 'Keep the file' },
        unsafe: { value: 'delete', title: `Delete '${filename}'` },
        // A client written for the seed's boolean question answers {confirm: true}.
        yesMeansUnsafe: true,
    };
}
