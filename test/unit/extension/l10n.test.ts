// The runtime strings: l10n/bundle.l10n.json matches the l10n.t calls in extension/, and a
// translated bundle reaches every word the vscode-free modules show (checked with a
// pseudo-translation, so a string that skips l10n.t, or a key that does not match, shows up).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import * as l10n from '@vscode/l10n';
import { getL10nJson, type l10nJsonFormat } from '@vscode/l10n-dev';
import { planFromSchema, validateStep, type PromptStep } from '../../../extension/input/schemaPlan';
import { fieldPrompt, inputPlaceholder, stepTitle } from '../../../extension/input/stepText';
import { formatResult } from '../../../extension/tasks/resultText';
import { clientKindText, formatElapsed, statusText, taskDescription, type TaskView } from '../../../extension/tasks/taskView';

const root = resolve(__dirname, '../../..');
const bundle = JSON.parse(readFileSync(join(root, 'l10n/bundle.l10n.json'), 'utf8')) as l10nJsonFormat;

function sources(dir: string): { contents: string; extension: string }[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
            return sources(path);
        }
        return entry.name.endsWith('.ts') ? [{ contents: readFileSync(path, 'utf8'), extension: '.ts' }] : [];
    });
}

const messageOf = (entry: l10nJsonFormat[string]) => (typeof entry === 'string' ? entry : entry.message);

describe('l10n bundle', () => {
    it('l10n/bundle.l10n.json is what `npm run l10n` extracts from extension/ (no missing, no stale entries)', async () => {
        const extracted = await getL10nJson(sources(join(root, 'extension')));
        const missing = Object.keys(extracted).filter(key => !(key in bundle));
        const stale = Object.keys(bundle).filter(key => !(key in extracted));
        assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, 'run `npm run l10n` and commit l10n/bundle.l10n.json');
        assert.deepEqual(bundle, extracted);
    });

    it('every entry is English text that keeps its own placeholders', () => {
        for (const [key, entry] of Object.entries(bundle)) {
            const message = messageOf(entry);
            assert.ok(key === message || key.startsWith(`${message}/`), `${key}: the key is the message, or message/comment`);
            const indexes = [...message.matchAll(/\{(\d+)\}/g)].map(m => Number(m[1]));
            // {0}..{n-1}, each used: a gap means an argument no translation can place.
            assert.deepEqual([...new Set(indexes)].sort(), [...Array(new Set(indexes).size).keys()], `${key}: placeholders`);
        }
    });
});

describe('a translated bundle reaches the vscode-free texts', () => {
    // Each message wrapped in ⟪ ⟫ with its placeholders kept, as a translator would keep them.
    const pseudo = Object.fromEntries(Object.entries(bundle).map(([key, entry]) => [key, `⟪${messageOf(entry)}⟫`]));
    const translated = (text: string) => /^⟪[\s\S]*⟫$/.test(text);

    const step = (property: Record<string, unknown>, required = true): PromptStep => {
        const plan = planFromSchema({ type: 'object', properties: { f: property }, required: required ? ['f'] : [] });
        assert.ok(plan.ok);
        return plan.steps[0]!;
    };

    it('shows statuses, times, form hints, errors and results in the display language', t => {
        l10n.config({ contents: pseudo });
        t.after(() => l10n.config({ contents: {} }));
        const view: TaskView = { taskId: 't1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: null, toolName: 'x', args: {} };

        for (const status of ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const) {
            assert.ok(translated(statusText(status)), status);
        }
        for (const kind of ['copilot', 'editor', 'other'] as const) {
            assert.ok(translated(clientKindText(kind)), kind);
            assert.ok(translated(clientKindText(kind, 'some-client')), kind);
        }
        assert.equal(formatElapsed(61_000), '⟪1m 01s⟫');
        assert.equal(taskDescription(view, Date.parse('2026-01-01T00:00:05Z')), '⟪running⟫ · ⟪<1m⟫');
        assert.equal(taskDescription({ ...view, lost: true }, Date.parse('2026-01-01T00:00:05Z')), '⟪lost (server stopped)⟫ · ⟪<1m⟫');

        assert.equal(stepTitle('Deploy', 1, 2), 'Deploy (⟪step 1 of 2⟫)');
        assert.equal(fieldPrompt(step({ type: 'string' }, false)), '⟪f (optional)⟫');
        assert.equal(inputPlaceholder(step({ type: 'integer', minimum: 1, maximum: 9 }, false)), '⟪A whole number⟫, ⟪≥ 1 and ≤ 9⟫, ⟪leave empty to skip⟫');
        assert.equal(validateStep(step({ type: 'string', minLength: 3 }), 'ab'), '⟪Must be at least 3 characters⟫');
        assert.equal(validateStep(step({ type: 'integer' }), 'x'), '⟪Must be an integer⟫');
        assert.equal(validateStep(step({ type: 'string', format: 'email' }), 'nope'), '⟪Enter a valid email address⟫');

        const bad = planFromSchema({ type: 'object', properties: { f: { type: 'object' } } });
        assert.ok(!bad.ok);
        assert.equal(bad.error, '⟪Property "f" ⟪is a nested object⟫, which cannot be shown as a form field.⟫');

        const text = formatResult('x', 't1', 'done', { content: [{ type: 'image', mimeType: 'image/png' }], structuredContent: {}, isError: true });
        assert.match(text, /^⟪Task `t1` — \*\*done\*\*⟫ — ⚠ ⟪the tool reported an error⟫$/m);
        assert.match(text, /^_\[⟪image image\/png content⟫\]_$/m);
        assert.match(text, /^## ⟪Structured content⟫$/m);
    });
});
