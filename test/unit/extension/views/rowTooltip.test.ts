// A row's tooltip says how a cancelled task ended as the result does: who cancelled it, in the user's
// words, not the server's "Cancelled by the client" (the README walk read that on the user's own Cancel).
import '../../../support/fakeVscode.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OWN_CLIENT_NAME } from '../../../../extension/owner/ownerConnection.js';
import type { TaskView } from '../../../../extension/tasks/taskView.js';
import { toTreeItem } from '../../../../extension/views/taskTreeItem.js';

const cancelled = (clientName: string, statusMessage: string): TaskView => ({
    taskId: 't1',
    status: 'cancelled',
    statusMessage,
    clientName,
    createdAt: '2026-12-04T18:00:00Z',
    lastUpdatedAt: '2026-12-04T18:00:10Z',
    ttl: 3_600_000,
    toolName: 'slow_compute',
    keyArgument: 'quarterly report',
    args: { label: 'quarterly report' },
});

const tooltip = (view: TaskView) => String((toTreeItem(view, false).tooltip as { value: string }).value);

describe("a cancelled row's tooltip", () => {
    it('says "Cancelled by you" for a task the user ran here and cancelled', () => {
        const text = tooltip(cancelled(OWN_CLIENT_NAME, 'Cancelled by the client'));
        assert.match(text, /Cancelled by you/);
        assert.doesNotMatch(text, /by the client/);
    });

    it('says "Cancelled by you" for a Copilot task cancelled from the sidebar', () => {
        assert.match(tooltip(cancelled('Visual Studio Code', 'Cancelled from the MCP Tasks sidebar')), /Cancelled by you/);
    });

    it('says "Cancelled by Copilot" when Copilot cancelled its own task', () => {
        assert.match(tooltip(cancelled('Visual Studio Code', 'Cancelled by the client')), /Cancelled by Copilot/);
    });
});
