import { z } from 'zod';
import { defineTool, textResult } from './types.js';

export const confirmDeleteTool = defineTool({
    name: 'confirm_delete',
    title: 'Delete a file (asks first)',
    description:
        'Asks the user to confirm, through an MCP elicitation form, before deleting the named file (the deletion is simulated: no file is touched). ' +
        'Runs as a task that waits in "input_required" until the user answers. Use it when the user asks to delete a file and confirmation is wanted. ' +
        'Returns "Deleted \'<filename>\'" if the user confirmed, otherwise "Deletion cancelled".',
    inputSchema: z.object({
        filename: z.string().min(1).max(1000).default('important.txt').describe('The file to delete, e.g. "notes/old-draft.md".'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    taskSupport: 'required',
    keyArgument: 'filename',
    async run({ filename }, ctx) {
        const answer = await ctx.elicit({
            mode: 'form',
            message: `Delete '${filename}'? This cannot be undone.`,
            requestedSchema: {
                type: 'object',
                properties: {
                    confirm: { type: 'boolean', title: 'Delete the file', description: `Yes to delete '${filename}'`, default: false },
                },
                required: ['confirm'],
            },
        });
        const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
        return textResult(confirmed ? `Deleted '${filename}'` : 'Deletion cancelled');
    },
});
