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
}

export interface DrawnView {
    sidebarWidth: number;
    viewProgress: boolean;
    rows: DrawnRow[];
}

/** The Tasks view as the Playwright UI driver reads it from the workbench (uiDriver.mjs readRowsOnRequest). */
export async function readRows(tag: string): Promise<DrawnView> {
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
