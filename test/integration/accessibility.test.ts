import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksTestApi } from '../../extension/api';
import { readRows, type DrawnRow, type DrawnView } from './drawnRows';
import { askUi, cleanUp, emptyTheView, longRunning, readyWithTasksView, startSlowCompute, useColorTheme, waitFor } from './util';

/** The recorded accessibility tree; MCP_TASKS_UPDATE_SNAPSHOTS=1 records it anew (review the diff before committing). */
const SNAPSHOT = resolve(__dirname, '../../../test/integration/fixtures/accessibility/states.aria.yml');

/** One row of each state a task can be in, by the text its row is found by (its label). */
const STATES = {
    running: 'aria-running',
    'needs input': 'aria-question.txt',
    completed: 'aria-completed',
    failed: 'failing_job',
    cancelled: 'aria-cancelled',
} as const;

/** The row of STATES' task in `state`: its label is the state, then the task's label (cut at 16 characters). */
function findStateRow(view: DrawnView, state: keyof typeof STATES): DrawnRow | undefined {
    const prefix = `${state}: `;
    return view.rows.find(row => row.label.toLowerCase().startsWith(prefix) && STATES[state].startsWith(row.label.slice(prefix.length).replace(/…$/, '')));
}

function stateRow(view: DrawnView, state: keyof typeof STATES): DrawnRow {
    const row = findStateRow(view, state);
    assert.ok(row, `no ${state} row in ${JSON.stringify(view.rows.map(r => r.label))}`);
    return row;
}

interface AriaReport {
    rows: Record<string, string>;
    statusBar: string;
}

type ContrastReport = Record<string, { icon: string; background: string; iconClass: string } | undefined>;

/** The themes VS Code ships, each checked for the contrast of every state's icon. */
const THEMES = ['Light 2026', 'Light Modern', 'Light+', 'Dark 2026', 'Dark Modern', 'Default High Contrast', 'Default High Contrast Light'];

/**
 * Times and percents change from run to run; the words around them are what is checked. A row's
 * name is its label, then its description's parts in words (spokenRow.ts); after the colon, the
 * text the row draws.
 */
function normalized(report: AriaReport): string {
    const text = [
        ...Object.entries(STATES).map(([state, label]) => `# ${state}\n${report.rows[label] ?? '(not asked)'}`),
        `# the status bar item\n${report.statusBar}`,
    ].join('\n');
    return `${text
        .replace(/\bin \d+ seconds\b/g, 'in N seconds')
        .replace(/\b\d+ percent\b/g, 'N percent')
        .replace(/(?<!\d)\d+%/g, 'N%')
        // The row's text runs its label into its description ("Completed: aria-completed0s").
        .replace(/(?<!\d)\d+s\b/g, 'Ns')
        // An icon drawn as a font glyph (a private-use character), made visible in the recorded file.
        .replace(/[\uE000-\uF8FF]/g, '<icon>')}\n`;
}

/** WCAG's contrast ratio of two CSS colors as getComputedStyle gives them (rgb()/rgba(), alpha over `under`). */
function contrast(foreground: string, background: string): number {
    const parse = (css: string): number[] => {
        const parts = /rgba?\(([^)]+)\)/.exec(css)?.[1]?.split(',').map(Number);
        assert.ok(parts && parts.length >= 3, `not a color: ${css}`);
        return parts.length === 4 ? parts : [...parts, 1];
    };
    const [br, bg, bb] = parse(background);
    const [fr, fg, fb, fa] = parse(foreground);
    // A translucent icon color is drawn over what is behind it.
    const over = [fr! * fa! + br! * (1 - fa!), fg! * fa! + bg! * (1 - fa!), fb! * fa! + bb! * (1 - fa!)];
    const luminance = (rgb: number[]): number => {
        const [r, g, b] = rgb.map(c => {
            const v = c / 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [light, dark] = [luminance(over), luminance([br!, bg!, bb!])].sort((a, b) => b - a);
    return (light! + 0.05) / (dark! + 0.05);
}

/**
 * Needs the Playwright UI driver. What a screen reader is given for a row in each state and for the
 * status bar item, checked against a recorded accessibility tree; and, in each theme VS Code ships,
 * the icon of each state at least 3:1 against the sidebar (WCAG 1.4.11: an icon that tells a state).
 */
describe('the rows and the status bar for screen readers and low vision', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyWithTasksView();
        await vscode.commands.executeCommand('workbench.action.closePanel');
    });

    after(async () => {
        await cleanUp([['put the theme back', () => useColorTheme(undefined)], ...emptyTheView(api, 'aria-leave')]);
    });

    /** A row of each state, drawn, with no row focused (a focused row shows its buttons over its text). */
    async function oneOfEachState(): Promise<void> {
        const { model, pendingInputs } = api.testing;
        const running = await longRunning(api, STATES.running);
        // Its name says its progress once it has some: read it then, as recorded.
        await waitFor('progress', () => ((model.get(running)?.progress?.progress ?? 0) > 0 ? true : undefined), 20_000, 50);
        const done = await startSlowCompute(0, STATES.completed);
        await waitFor('the completed task', () => (model.get(done)?.status === 'completed' ? true : undefined), 30_000, 50);
        const failed = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'failing_job', args: {}, mode: 'task' })) as string;
        await waitFor('the failed task', () => (model.get(failed)?.status === 'failed' ? true : undefined), 30_000, 50);
        const cancelled = await longRunning(api, STATES.cancelled);
        await api.testing.owner.cancel(cancelled);
        const asking = (await vscode.commands.executeCommand('mcpTasks.runTool', { name: 'confirm_delete', args: { filename: STATES['needs input'] }, mode: 'task' })) as string;
        // Asked, whether or not its prompt is still on screen (a focus change at start-up can hide it first): hidden either way.
        await waitFor('the question', () => (model.get(asking)?.status === 'input_required' && pendingInputs.get(asking) ? true : undefined), 30_000, 50);
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await waitFor('the question hidden', () => pendingInputs.get(asking)?.hidden || undefined, 10_000, 50);
        await askUi('ui-keys aria-away :: Control+0 Escape', 'keys-aria-away.json');
        await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
        await readRows('aria-states', view =>
            (Object.keys(STATES) as (keyof typeof STATES)[]).every(state => findStateRow(view, state) !== undefined),
        );
    }

    it('a row in each state and the status bar item read as recorded: role, name in words, no icon names', async () => {
        const { model, owner } = api.testing;
        await Promise.all(model.running().map(view => owner.cancel(view.taskId).catch(() => undefined)));
        await waitFor('nothing running', () => (model.running().length === 0 ? true : undefined), 20_000, 100);
        await vscode.commands.executeCommand('mcpTasks.clearFinished');
        await oneOfEachState();
        // The status bar says what waits: read once the item shows the waiting question.
        let report: AriaReport | undefined;
        await waitFor('the status bar item naming the question', async () => {
            report = await askUi<AriaReport>(`ui-aria states :: ${Object.values(STATES).join('|')}`, 'aria-states.json');
            return /needs input/.test(report.statusBar) ? true : undefined;
        }, 30_000, 500);
        const seen = normalized(report!);
        const recorded = existsSync(SNAPSHOT) ? readFileSync(SNAPSHOT, 'utf8') : '';
        if (process.env.MCP_TASKS_UPDATE_SNAPSHOTS === '1' || recorded === '') {
            mkdirSync(dirname(SNAPSHOT), { recursive: true });
            writeFileSync(SNAPSHOT, seen);
            assert.notEqual(recorded, '', `no recorded snapshot yet: recorded ${SNAPSHOT}; review it and run again`);
        }
        assert.equal(seen, recorded, `the accessibility tree differs from ${SNAPSHOT} (MCP_TASKS_UPDATE_SNAPSHOTS=1 records it anew)`);
        // Whatever was recorded: no icon's name or glyph is in a name a screen reader says, and each state is said in words.
        const names = [...seen.matchAll(/^- '\w+ "([^"]*)"/gm)].map(match => match[1]!);
        assert.equal(names.length, Object.keys(STATES).length + 1, `a name for each row and the status bar item: ${seen}`);
        for (const name of names) {
            assert.doesNotMatch(name, /codicon|\$\(|<icon>|~spin/, `an icon's name or glyph in "${name}"`);
        }
        for (const [state, label] of Object.entries(STATES)) {
            assert.match(report!.rows[label] ?? '', new RegExp(`treeitem "[^"]*${label.replace(/\./g, '\\.')}, ${state}\\b`), `the ${state} row says its state after its label`);
        }
    });

    it('at the narrowest sidebar (about the width 200% zoom leaves) each row still says its state in words', async () => {
        // The rows of the test before. The side bar dragged to its narrowest (VS Code stops it at 170 px;
        // a 300 px side bar at 200% zoom is 150), then back.
        const wide = await readRows('aria-width');
        try {
            await askUi('ui-keys aria-narrow :: sidebar-width:150', 'keys-aria-narrow.json');
            await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
            const drawn = await readRows('aria-narrow');
            assert.ok(drawn.sidebarWidth < 200, `the side bar narrowed from ${wide.sidebarWidth} px to ${drawn.sidebarWidth} px`);
            for (const state of Object.keys(STATES) as (keyof typeof STATES)[]) {
                const row = stateRow(drawn, state);
                // The name may be cut; the state word never is.
                assert.ok(row.visibleLabel.toLowerCase().startsWith(`${state}:`), `at ${drawn.sidebarWidth} px the ${state} row shows "${row.visibleLabel}"`);
                assert.ok(row.visibleLabel.length + row.visibleDescription.length < row.label.length + row.description.length, `the row is cut at ${drawn.sidebarWidth} px: ${JSON.stringify(row)}`);
            }
            console.log(`[accessibility] at ${drawn.sidebarWidth} px: ${drawn.rows.map(row => `"${row.visibleLabel}${row.visibleDescription}"`).join(', ')}`);
        } finally {
            await askUi(`ui-keys aria-wide :: sidebar-width:${wide.sidebarWidth}`, 'keys-aria-wide.json');
        }
    });

    it("each state's icon stands out at least 3:1 against the sidebar in every theme VS Code ships", async function () {
        this.timeout(240_000);
        const failures: string[] = [];
        const measured: string[] = [];
        try {
            for (const theme of THEMES) {
                await useColorTheme(theme);
                const slug = theme.toLowerCase().replace(/[^a-z0-9]+/g, '-');
                const report = await askUi<ContrastReport>(`ui-contrast ${slug} :: ${Object.values(STATES).join('|')}`, `contrast-${slug}.json`);
                for (const [state, label] of Object.entries(STATES)) {
                    const drawn = report[label];
                    assert.ok(drawn, `no ${state} row drawn in ${theme}`);
                    const ratio = contrast(drawn.icon, drawn.background);
                    measured.push(`${theme} ${state} ${drawn.icon} on ${drawn.background}: ${ratio.toFixed(2)}:1`);
                    if (ratio < 3) {
                        failures.push(`${theme}: the ${state} icon (${drawn.icon}) on ${drawn.background} is ${ratio.toFixed(2)}:1`);
                    }
                }
            }
        } finally {
            await useColorTheme(undefined);
        }
        console.log(`[accessibility] icon contrast:\n  ${measured.join('\n  ')}`);
        assert.deepEqual(failures, []);
    });
});
