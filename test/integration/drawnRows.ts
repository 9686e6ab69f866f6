import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { uiArtifact } from './util';

export interface DrawnRow {
    level: number;
    label: string;
    description: string;
    /** What shows before the row clips its text. */
    visibleLabel: string;
    visibleDescription: string;
    /** Its icon turns. */
    spinning: boolean;
}

export interface DrawnView {
    sidebarWidth: number;
    viewProgress: boolean;
    /** Some icon in the status bar turns. */
    statusSpinning: boolean;
    /** The line the view shows above its rows (its TreeView.message), '' for none. */
    message: string;
    /** The buttons of a welcome shown in place of rows, by their text. */
    welcomeButtons: string[];
    rows: DrawnRow[];
}

/**
 * The Tasks view as the Playwright UI driver reads it from the workbench (uiDriver.mjs readRowsOnRequest).
 * The tree draws a model change a moment after the model has it, so a test that knows what it waits for
 * passes `drawn`: the view is read again until it shows that, and the last read is returned either way,
 * for the test's assertions to say what was on screen.
 */
export async function readRows(tag: string, drawn?: (view: DrawnView) => boolean, timeoutMs = 15_000): Promise<DrawnView> {
    const until = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
        const view = await readOnce(attempt === 0 ? tag : `${tag}-${attempt}`);
        if (!drawn || drawn(view) || Date.now() >= until) {
            return view;
        }
    }
}

async function readOnce(tag: string): Promise<DrawnView> {
    const since = Date.now();
    const request = vscode.window.setStatusBarMessage(`ui-read-rows ${tag}`);
    try {
        const path = (await uiArtifact(`rows-${tag}.json`, since, true))!;
        return JSON.parse(readFileSync(path, 'utf8')) as DrawnView;
    } finally {
        request.dispose();
    }
}

export function rowOf(view: DrawnView, label: string): DrawnRow {
    const row = view.rows.find(candidate => candidate.label === label);
    assert.ok(row, `no row labelled "${label}" in ${JSON.stringify(view.rows.map(r => r.label))}`);
    return row;
}
