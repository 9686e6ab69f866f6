// Drives the real workbench with Playwright while the suite runs inside it. It acts on what it
// sees, by name: prompts whose title names a ui-* file, the tree row of the "ui-cancel" task,
// the sampling consent notification, VS Code's own MCP question reached through a row's Respond
// (copilot-respond-<file>.json), a row's context menu and the Workspace Trust editor (on request),
// and VS Code's tool approvals tree (whose row labels it writes to tool-approvals.json).
// Screenshots go to test-results/screenshots; the suite waits on those files (util.ts uiArtifact)
// to know the driver has seen a state.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { layoutSettled, painted, pollFor, REPORT_MS } from './pageWaits.mjs';

const QUICK_INPUT = '.quick-input-widget';
/** A row of the Tasks view: the sidebar's, not the Notifications Center's (whose hidden rows can name the same task). */
const TREE_ROW = '.part.sidebar .monaco-list-row';

/**
 * The Tasks view's row of a task, by its key argument or label. The row's label may be cut to fit
 * the sidebar ("ui-interrupt-es…"); its accessible name (aria-label) carries the whole "tool: key".
 */
function taskRow(page, text) {
    return page.locator(`${TREE_ROW}[aria-label*=${JSON.stringify(text)}]`).first();
}
/** The server label VS Code groups our tools under (package.json mcpServerDefinitionProviders). */
const SERVER_LABEL = 'MCP Tasks';

/**
 * A row's inline action by its title. VS Code appends the command's keybinding to the button's
 * tooltip and aria-label when one applies ("Cancel Task (Delete)"), so the name may carry it.
 */
function rowAction(row, title) {
    return row.getByRole('button', { name: new RegExp(`^${title}( \\(.+\\))?$`) });
}

/**
 * How long a click gets to take effect before the driver clicks again, as a user would. On a loaded
 * machine a click can land while the tree redraws the row and do nothing; the suite then still
 * waits on the outcome of a click, so a second one keeps what it asserts unchanged.
 */
const RECLICK_MS = 20_000;

/**
 * `repository` serves the repository's files at the URL vsce points the packaged README's images to
 * (`{ url, root }`): this machine has no internet, and the details page fetches them from there.
 */
export function createUiDriver(shotsDir, log = line => console.log(line), { repository } = {}) {
    mkdirSync(shotsDir, { recursive: true });
    const shot = async (page, name, locator) => {
        const path = join(shotsDir, `${name}.png`);
        await (locator ?? page).screenshot({ path }).catch(err => log(`[ui] screenshot ${name} failed: ${err.message}`));
        log(`[ui] screenshot ${path}`);
    };
    /**
     * A report the suite waits for by its mtime, written whole or not at all: a file written in
     * place is empty for a moment after it is opened, and a loaded machine let the suite read it
     * then ("Unexpected end of JSON input"). A rename is atomic, and keeps the new file's mtime.
     */
    const writeReport = (file, value) => {
        const path = join(shotsDir, file);
        writeFileSync(`${path}.partial`, JSON.stringify(value, null, 2));
        renameSync(`${path}.partial`, path);
    };
    const done = new Set();
    /** When each requested click was last made, by request. */
    const clicked = new Map();
    /** Whether a click for `key` is due: never made, or made RECLICK_MS ago with its request still standing. */
    const clickDue = key => {
        const last = clicked.get(key);
        if (last !== undefined && Date.now() - last < RECLICK_MS) {
            return false;
        }
        if (last !== undefined) {
            log(`[ui] ${key}: the last click took no effect in ${RECLICK_MS / 1000} s; clicking again`);
        }
        clicked.set(key, Date.now());
        return true;
    };
    /** Row labels last read in VS Code's "Manage Tool Approval" tree. */
    let approvalRows = [];

    async function answerPrompt(page) {
        const widget = page.locator(QUICK_INPUT);
        if (!(await widget.isVisible().catch(() => false))) {
            return;
        }
        const title = (await widget.locator('.quick-input-title').textContent().catch(() => '')) ?? '';
        const input = widget.locator('input').first();
        const interrupt = /ui-interrupt-(esc|quickopen)/.exec(title);
        if (interrupt && !done.has(interrupt[0])) {
            // Interrupt once; the prompt that comes back through Respond is answered below.
            if (interrupt[1] === 'esc') {
                // Escape goes where the focus is: put it in the prompt first (the view may hold it).
                log(`[ui] pressing Escape on "${title}"`);
                await input.focus();
                await page.keyboard.press('Escape');
                if (await widget.waitFor({ state: 'hidden', timeout: 2000 }).then(() => true, () => false)) {
                    done.add(interrupt[0]);
                } else {
                    const focus = await page.evaluate(() => {
                        const el = document.activeElement;
                        return `${el?.tagName}.${el?.className} in ${el?.closest('[id]')?.id ?? '?'}; title now "${document.querySelector('.quick-input-widget .quick-input-title')?.textContent}"; rows ${document.querySelectorAll('.quick-input-widget .monaco-list-row').length}`;
                    });
                    log(`[ui] Escape left the prompt up: focus ${focus}`);
                    await shot(page, 'escape-left-prompt-up');
                }
            } else {
                done.add(interrupt[0]);
                log(`[ui] opening Quick Open (Ctrl+P) over "${title}"`);
                await page.keyboard.press('Control+P');
                // Quick Open takes the widget over: its title is no longer the prompt's.
                await page
                    .waitForFunction(prompt => document.querySelector('.quick-input-widget .quick-input-title')?.textContent !== prompt, title, { timeout: 5000 })
                    .catch(() => log('[ui] Quick Open did not replace the prompt'));
                const quickOpenTitle = (await widget.locator('.quick-input-title').textContent().catch(() => '')) ?? '';
                log(`[ui] Quick Open is up (prompt title now "${quickOpenTitle}"); closing it`);
                await page.keyboard.press('Escape');
            }
        } else if (/ui-consent/.test(title)) {
            // A language model consent question brought back by Respond: photograph it, say what it offers, allow.
            await shot(page, 'sampling-consent-reopened');
            writeReport('consent.json', await readQuickInput(page));
            log(`[ui] answering Allow on "${title}"`);
            await chooseByTyping(widget, input, 'Allow');
            await page.keyboard.press('Enter');
        } else if (/ui-interrupt/.test(title)) {
            log(`[ui] answering Delete on the reopened "${title}"`);
            await chooseByTyping(widget, input, 'Delete');
            await page.keyboard.press('Enter');
        } else if (/ui-keep|ui-decline/.test(title)) {
            const choice = /ui-keep/.test(title) ? 'Keep the file' : 'Decline';
            log(`[ui] answering ${choice} on "${title}"`);
            await chooseByTyping(widget, input, choice);
            await page.keyboard.press('Enter');
        } else if (/ui-yes|ui-raw/.test(title)) {
            log(`[ui] answering Delete on "${title}"`);
            if (!done.has('prompt')) {
                done.add('prompt');
                await shot(page, 'elicitation-prompt');
                // What the prompt says, for the suite to read (prompt.json): its title, hint and choices.
                const rows = widget.locator('.monaco-list-row');
                const choices = [];
                for (let i = 0; i < (await rows.count()); i++) {
                    const row = rows.nth(i);
                    choices.push({
                        label: ((await row.locator('.label-name').first().textContent().catch(() => '')) ?? '').trim(),
                        description: ((await row.locator('.label-description').first().textContent().catch(() => '')) ?? '').trim(),
                    });
                }
                const placeholder = (await input.getAttribute('placeholder').catch(() => '')) ?? '';
                // The row Enter would pick before anything is typed: the safe one.
                const active = await activeRow(widget);
                writeReport('prompt.json', { title, placeholder, choices, active });
            }
            await chooseByTyping(widget, input, 'Delete');
            await page.keyboard.press('Enter');
        } else {
            return;
        }
        // Gone, or replaced by the next prompt: never answer the same one twice.
        await page.waitForFunction(
            answered => {
                const shown = document.querySelector('.quick-input-widget');
                return !shown || shown.offsetParent === null || shown.querySelector('.quick-input-title')?.textContent !== answered;
            },
            title,
            { timeout: 10_000 },
        );
    }

    /** The focused (active) row of a pick: what Enter accepts. */
    async function activeRow(widget) {
        const row = widget.locator('.monaco-list-row.focused').first();
        const text = async locator => ((await locator.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
        return (await row.isVisible().catch(() => false)) ? { label: await text(row.locator('.label-name')), description: await text(row.locator('.label-description')) } : undefined;
    }

    /** Types into a pick's filter until the row starting with `words` is the active one, so Enter accepts it. */
    async function chooseByTyping(widget, input, words) {
        await input.fill(words);
        await widget
            .locator('.monaco-list-row.focused', { has: widget.page().locator('.label-name', { hasText: new RegExp(`^${words}`) }) })
            .first()
            .waitFor({ timeout: 5000 })
            .catch(() => log(`[ui] no active "${words}" row seen; pressing Enter anyway`));
    }

    /** Expands our server in the tool approvals tree and keeps its row labels (the titles VS Code shows). */
    async function readToolApprovals(page) {
        const widget = page.locator(QUICK_INPUT);
        if (!(await widget.isVisible().catch(() => false))) {
            return;
        }
        const placeholder = (await widget.locator('input').first().getAttribute('placeholder').catch(() => '')) ?? '';
        if (!/tool approvals/i.test(placeholder)) {
            return;
        }
        const server = widget.locator('.monaco-list-row', { hasText: SERVER_LABEL }).first();
        if (!(await server.isVisible().catch(() => false))) {
            return;
        }
        const twistie = server.locator('.monaco-tl-twistie.collapsed');
        if (await twistie.isVisible().catch(() => false)) {
            log(`[ui] expanding ${SERVER_LABEL} in the tool approvals tree`);
            await twistie.click();
            await server.locator('.monaco-tl-twistie.collapsed').waitFor({ state: 'detached', timeout: 5000 }).catch(() => undefined);
        }
        const labels = (await widget.locator('.monaco-list-row .label-name').allTextContents()).map(label => label.trim());
        if (labels.length <= 1) {
            return;
        }
        if (labels.join() !== approvalRows.join()) {
            approvalRows = labels;
            log(`[ui] tool approvals tree shows: ${approvalRows.join(' | ')}`);
            await shot(page, 'tool-approvals', widget);
        }
        // Rewritten on every look, so its time says the tree was read since the suite opened it.
        writeReport('tool-approvals.json', approvalRows);
    }

    async function allowSampling(page) {
        // Consent is remembered per client: one Allow is all the suite needs.
        if (done.has('sampling')) {
            return;
        }
        // Never touch the Notifications Center while a prompt is open: its Escape or focus
        // change would hide (and so cancel) the prompt.
        if (await page.locator(QUICK_INPUT).isVisible().catch(() => false)) {
            return;
        }
        // Nor while the Copilot suite asks for a Respond: it checks that the center was closed before.
        if (await page.locator('.part.statusbar .statusbar-item', { hasText: /ui-copilot-respond / }).first().isVisible().catch(() => false)) {
            return;
        }
        // The smoke-test driver hides toasts: look in the Notifications Center.
        // Not the question a suite leaves open on purpose (its task is named ui-consent-…).
        const toast = page.locator('.notification-list-item', { hasText: /for a reply to: / }).filter({ hasNotText: /ui-consent/ }).first();
        if (!(await toast.isVisible().catch(() => false))) {
            const bell = page.locator('[id="status.notifications"]').first();
            if (!(await bell.isVisible().catch(() => false))) {
                return;
            }
            await bell.click().catch(() => undefined);
            await page.locator('.notifications-center').waitFor({ state: 'visible', timeout: 5000 }).catch(() => undefined);
            if (!(await toast.isVisible().catch(() => false))) {
                // Close the center the way it was opened (the bell toggles it), not with Escape.
                if (await page.locator('.notifications-center').isVisible().catch(() => false)) {
                    await bell.click().catch(() => undefined);
                }
                return;
            }
        }
        log('[ui] allowing sampling in the consent notification');
        await toast.getByRole('button', { name: 'Allow', exact: true }).click();
        done.add('sampling');
        await toast.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
    }

    async function photographDeploy(page) {
        // A deploy's steps are named by the step alone (after their state) under their parent.
        const step = name => page.locator(TREE_ROW, { has: page.locator('.label-name', { hasText: new RegExp(`^[\\w ]+: ${name}$`) }) }).first();
        const row = step('build');
        // The sub-tasks suite's deploy, not another suite's.
        const showcase = page.locator(`${TREE_ROW} .label-name`, { hasText: /^[\w ]+: showcase$/ }).first();
        if (!done.has('deploy') && (await row.isVisible().catch(() => false)) && (await showcase.isVisible().catch(() => false))) {
            done.add('deploy');
            // Both children rendered under the expanded parent.
            await step('test').waitFor({ timeout: 5000 }).catch(() => undefined);
            await shot(page, 'tree-subtasks', page.locator('.part.sidebar'));
            await shot(page, 'workbench-subtasks');
        }
    }

    async function cancelFromTree(page) {
        const row = taskRow(page, 'ui-cancel');
        if (!(await row.isVisible().catch(() => false))) {
            return;
        }
        const text = (await row.textContent()) ?? '';
        if (/Running: /.test(text) && done.has('cancel') && clickDue('cancel ui-cancel')) {
            await row.hover();
            await rowAction(row, 'Cancel Task').click();
        } else if (/Running: /.test(text) && !done.has('cancel')) {
            done.add('cancel');
            // Photograph it with progress showing, in the row and in the status bar.
            // (A screenshot is no assertion: if that never shows, photograph what there is.)
            await row.filter({ hasText: /Running: .*[1-9]\d*%/ }).waitFor({ timeout: 10_000 }).catch(() => log('[ui] no progress in the row'));
            await page.locator('.part.statusbar', { hasText: /slow_compute [1-9]\d*%/ }).waitFor({ timeout: 10_000 }).catch(() => log('[ui] no progress in the status bar'));
            await shot(page, 'tree-running', page.locator('.part.sidebar'));
            await shot(page, 'statusbar', page.locator('.part.statusbar'));
            await shot(page, 'workbench-running');
            log('[ui] clicking the inline Cancel of ui-cancel');
            clicked.set('cancel ui-cancel', Date.now());
            await row.hover();
            await rowAction(row, 'Cancel Task').click();
        } else if (/Cancelled: /.test(text) && done.has('cancel') && !done.has('cancelled-shot')) {
            done.add('cancelled-shot');
            await shot(page, 'tree-finished', page.locator('.part.sidebar'));
        }
    }

    /**
     * The suite asks for Respond with a status bar message "ui-respond <file> via row|status":
     * the inline Respond on that task's row, or the status bar item's "needs input".
     */
    async function respondOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-respond \S+ via (row|status)/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, file, via] = /ui-respond (\S+) via (row|status)/.exec((await request.textContent()) ?? '') ?? [];
        if (!file || !clickDue(`respond ${file}`)) {
            return;
        }
        if (via === 'row') {
            const row = taskRow(page, file);
            log(`[ui] clicking the inline Respond of ${file}`);
            await row.hover();
            await rowAction(row, 'Respond').click();
        } else {
            log(`[ui] clicking the status bar's "needs input" for ${file}`);
            await page.locator('.part.statusbar .statusbar-item', { hasText: 'needs input' }).first().click();
        }
        // The prompt comes back: the next pass answers it.
        await page.locator(QUICK_INPUT).waitFor({ timeout: 5000 }).catch(() => log('[ui] no prompt came back after Respond'));
    }

    /**
     * The suite's request in the status bar that `pattern` matches, the first time it is asked: its
     * match (group 1 names it), once marked done as `<key>-<name>`; undefined when there is none or
     * it was served already.
     */
    async function takeRequest(page, pattern, key) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: pattern }).first();
        if (!(await request.isVisible().catch(() => false))) {
            return undefined;
        }
        const match = pattern.exec(((await request.textContent()) ?? '').trim());
        if (!match?.[1] || done.has(`${key}-${match[1]}`)) {
            return undefined;
        }
        done.add(`${key}-${match[1]}`);
        return match;
    }

    /**
     * The suite asks "ui-read-rows <tag>" in the status bar: the driver writes rows-<tag>.json with
     * the Tasks view's rows as drawn (label, description, and the part of each a user can see
     * before the row clips it), the sidebar's width, whether the view's progress bar runs, and its message.
     */
    async function readRowsOnRequest(page) {
        const [, tag] = (await takeRequest(page, /ui-read-rows (\S+)/, 'rows')) ?? [];
        if (!tag) {
            return;
        }
        // Rows as a user sees them who is not pointing at one: a hovered row shows its buttons over its text.
        await page.mouse.move(700, 450);
        const report = await page.evaluate(() => {
            const sidebar = document.querySelector('.part.sidebar');
            /** The text of `node` whose glyphs end left of `clip` (less room for an ellipsis): what shows. */
            const visible = (node, clip) => {
                const walker = node ? document.createTreeWalker(node, NodeFilter.SHOW_TEXT) : undefined;
                const full = node?.textContent ?? '';
                const range = document.createRange();
                let shown = '';
                for (let text = walker?.nextNode(); text; text = walker.nextNode()) {
                    for (let end = 1; end <= text.length; end++) {
                        range.setStart(text, end - 1);
                        range.setEnd(text, end);
                        const last = shown.length + 1 === full.length;
                        if (range.getBoundingClientRect().right > clip - (last ? 0 : 8)) {
                            return shown;
                        }
                        shown += text.data[end - 1];
                    }
                }
                return shown;
            };
            const rows = [...(sidebar?.querySelectorAll('.monaco-list-row') ?? [])].map(row => {
                const container = row.querySelector('.monaco-icon-label-container');
                const clip = container?.getBoundingClientRect().right ?? 0;
                const label = row.querySelector('.label-name');
                const description = row.querySelector('.label-description');
                return {
                    level: Number(row.getAttribute('aria-level') ?? 0),
                    label: label?.textContent ?? '',
                    description: description?.textContent ?? '',
                    visibleLabel: visible(label, clip),
                    visibleDescription: visible(description, clip),
                    // Its icon turns (a ThemeIcon with ~spin draws with this modifier class).
                    spinning: row.querySelector('.codicon-modifier-spin') !== null,
                };
            });
            const progress = [...(sidebar?.querySelectorAll('.monaco-progress-container.active') ?? [])].some(bar => bar.offsetParent !== null);
            // The line a tree view shows above its rows (TreeView.message), when it has one.
            const message = sidebar?.querySelector('.tree-explorer-viewlet-tree-view .message:not(.hide)')?.textContent ?? '';
            const statusSpinning = document.querySelector('.part.statusbar .codicon-modifier-spin') !== null;
            // The buttons of a welcome shown in place of rows (viewsWelcome): places a keyboard can rest on.
            const welcomeButtons = [...(sidebar?.querySelectorAll('.welcome-view-content .monaco-button') ?? [])].filter(button => button.offsetParent !== null).map(button => button.textContent ?? '');
            return { sidebarWidth: Math.round(sidebar?.getBoundingClientRect().width ?? 0), viewProgress: progress, statusSpinning, message, welcomeButtons, rows };
        });
        writeReport(`rows-${tag}.json`, report);
        log(`[ui] read ${report.rows.length} rows for ${tag} (sidebar ${report.sidebarWidth} px, progress bar ${report.viewProgress ? 'on' : 'off'})`);
        await shot(page, `rows-${tag}`, page.locator('.part.sidebar'));
    }

    /**
     * The suite asks "ui-aria <tag> :: <row text>|<row text>…": the driver writes aria-<tag>.json with the
     * accessibility tree (Playwright's ariaSnapshot: each element's role, name and states, as a screen
     * reader is given them) of each named row and of our status bar item, read with no pointer over them.
     */
    async function ariaOnRequest(page) {
        const [, tag, wanted] = (await takeRequest(page, /ui-aria (\S+) :: (.+)$/, 'aria')) ?? [];
        if (!tag) {
            return;
        }
        await page.mouse.move(700, 450);
        const read = async locator => (await locator.count()) === 0 ? '(not drawn)' : locator.ariaSnapshot({ timeout: REPORT_MS }).catch(err => `(unreadable: ${err.message.split('\n')[0]})`);
        const rows = {};
        for (const text of wanted.split('|')) {
            rows[text] = await read(taskRow(page, text));
        }
        const statusBar = await read(page.locator('.part.statusbar [id$="mcpTasks.status"]').first());
        writeReport(`aria-${tag}.json`, { rows, statusBar });
        await shot(page, `aria-${tag}`);
    }

    /**
     * The suite asks "ui-contrast <tag> :: <row text>|<row text>…": the driver writes contrast-<tag>.json
     * with, for each named row, its icon's drawn color and the color behind it (the first opaque
     * background from the row up: the sidebar's when the row is neither hovered nor selected).
     */
    async function contrastOnRequest(page) {
        const [, tag, wanted] = (await takeRequest(page, /ui-contrast (\S+) :: (.+)$/, 'contrast')) ?? [];
        if (!tag) {
            return;
        }
        await page.mouse.move(700, 450);
        const report = await page.evaluate(texts => {
            const behind = el => {
                for (let at = el; at; at = at.parentElement) {
                    const color = getComputedStyle(at).backgroundColor;
                    if (color && !/^rgba\(.*,\s*0\)$/.test(color) && color !== 'transparent') {
                        return color;
                    }
                }
                return getComputedStyle(document.body).backgroundColor;
            };
            return Object.fromEntries(
                texts.map(text => {
                    const row = [...document.querySelectorAll('.part.sidebar .monaco-list-row')].find(candidate => (candidate.getAttribute('aria-label') ?? '').includes(text));
                    const icon = row?.querySelector('.custom-view-tree-node-item-icon, .codicon');
                    return [text, icon ? { icon: getComputedStyle(icon).color, background: behind(icon), iconClass: icon.className } : undefined];
                }),
            );
        }, wanted.split('|'));
        writeReport(`contrast-${tag}.json`, report);
        await shot(page, `contrast-${tag}`, page.locator('.part.sidebar'));
    }

    /**
     * The suite asks "ui-row-tooltip <row text>": the driver points at that row until its tooltip shows,
     * writes row-tooltip-<row text>.json (the tooltip's lines as drawn) and photographs the workbench.
     */
    async function rowTooltipOnRequest(page) {
        const [, text] = (await takeRequest(page, /ui-row-tooltip (\S+)/, 'row-tooltip')) ?? [];
        if (!text) {
            return;
        }
        const row = taskRow(page, text);
        await row.hover();
        const hover = page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).first();
        const shown = await hover.waitFor({ timeout: REPORT_MS }).then(() => true, () => false);
        if (!shown) {
            log(`[ui] no tooltip showed over ${text}`);
        }
        const lines = shown ? (await hover.innerText()).split('\n').map(line => line.trim()).filter(Boolean) : [];
        await shot(page, `row-tooltip-${text}`);
        writeReport(`row-tooltip-${text}.json`, lines);
        await page.mouse.move(700, 450);
    }

    /** The suite asks "ui-row-action <row text> :: <action title>": the driver clicks that inline button. */
    async function rowActionOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-row-action .+ :: .+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const asked = ((await request.textContent()) ?? '').trim();
        const [, text, title] = /ui-row-action (.+?) :: (.+)$/.exec(asked) ?? [];
        if (!text || !clickDue(asked)) {
            return;
        }
        const row = taskRow(page, text);
        log(`[ui] clicking ${title} on the row of ${text}`);
        await row.hover();
        await rowAction(row, title).click();
    }

    /** The suite asks "ui-row-click <row text>": the driver clicks that row of the Tasks view once (its own command runs). */
    async function rowClickOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-row-click .+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, text] = /ui-row-click (.+)$/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!text || done.has(`row-click-${text}`)) {
            return;
        }
        const row = taskRow(page, text);
        if (!(await row.isVisible().catch(() => false))) {
            return;
        }
        done.add(`row-click-${text}`);
        log(`[ui] clicking the row "${text}"`);
        await row.click();
    }

    /**
     * The suite asks "ui-copilot-respond <file> confirm|keep" for a task whose question VS Code's
     * own MCP client asks: the driver clicks the row's Respond, reads the Notifications Center that
     * should open on VS Code's question (copilot-respond-<file>.json), then answers there as a user
     * would: VS Code's Respond button, and the choice in the pick that follows.
     */
    async function copilotRespondOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-copilot-respond \S+ (confirm|keep)/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, file, answer] = /ui-copilot-respond (\S+) (confirm|keep)/.exec((await request.textContent()) ?? '') ?? [];
        if (!file || done.has(`copilot-${file}`)) {
            return;
        }
        done.add(`copilot-${file}`);
        const center = page.locator('.notifications-center');
        // The question must be out of sight, as once its toast has hidden. The suite closed the center,
        // but in a full run something reopened it before the click (the report's beforeClick says
        // what it held); close it again the way a user would, with the bell, then check.
        const openBefore = await center.isVisible().catch(() => false);
        const beforeClick = openBefore ? (await center.locator('.notification-list-item-message').allTextContents().catch(() => [])).map(message => message.trim()) : [];
        if (openBefore) {
            await shot(page, `copilot-center-before-${answer}`);
            log('[ui] the Notifications Center is open before Respond; closing it with the bell first');
            await page.locator('[id="status.notifications"]').first().click().catch(() => undefined);
            await center.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
        }
        const centerBeforeClick = await center.isVisible().catch(() => false);
        const row = taskRow(page, file);
        log(`[ui] clicking the inline Respond of ${file} (VS Code's own client asks)`);
        await row.hover();
        await rowAction(row, 'Respond').click();
        await center.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => log('[ui] the Notifications Center did not open'));
        const centerAfterClick = await center.isVisible().catch(() => false);
        const question = center.locator('.notification-list-item', { hasText: file }).first();
        await question.waitFor({ timeout: 10_000 }).catch(() => log(`[ui] no notification about ${file} in the center`));
        const text = async locator => ((await locator.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
        const report = {
            centerBeforeClick,
            // What an already open center held: to tell who opened it.
            beforeClick,
            centerAfterClick,
            message: await text(question.locator('.notification-list-item-message')),
            source: await text(question.locator('.notification-list-item-source')),
            buttons: (await question.locator('.monaco-button').allTextContents().catch(() => [])).map(label => label.trim()),
            // Everything the center holds, so the suite can tell no message of ours was left behind.
            all: (await center.locator('.notification-list-item-message').allTextContents().catch(() => [])).map(message => message.trim()),
        };
        await shot(page, `copilot-respond-${answer}`);
        log(`[ui] VS Code's Respond on "${report.message}" (${report.source})`);
        const widget = page.locator(QUICK_INPUT);
        try {
            await question.getByRole('button', { name: 'Respond', exact: true }).click();
            await widget.waitFor({ timeout: 10_000 });
            // VS Code's pick as it opens: its rows, and the active one (what Enter would answer).
            await widget.locator('.monaco-list-row.focused').first().waitFor({ timeout: 5000 }).catch(() => log("[ui] no active row in VS Code's pick"));
            const rows = widget.locator('.monaco-list-row');
            report.pick = { title: await text(widget.locator('.quick-input-title')), choices: [], active: await activeRow(widget) };
            for (let i = 0; i < (await rows.count()); i++) {
                report.pick.choices.push({ label: await text(rows.nth(i).locator('.label-name')), description: await text(rows.nth(i).locator('.label-description')) });
            }
        } finally {
            writeReport(`copilot-respond-${file}.json`, report);
        }
        // Pick by the words, whatever the order (VS Code labels each choice with its value).
        const choice = answer === 'confirm' ? /^(true|yes|delete)/i : /^(false|no|keep|cancel)/i;
        const pick = widget.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: choice }) }).first();
        log(`[ui] choosing ${answer} in VS Code's pick "${await text(widget.locator('.quick-input-title'))}"`);
        await pick.click();
        await widget.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => log("[ui] VS Code's pick stayed open"));
    }

    /**
     * The suite asks "ui-copilot-form <row text> :: <first answer>" for a task whose form question
     * VS Code's own MCP client asks (one step per field): the driver clicks the row's Respond, then
     * VS Code's Respond on the question in the Notifications Center (photographed:
     * copilot-form-question.png), types the answer to the first field and accepts every other
     * field as offered (its default, or skipped), and writes what it saw to copilot-form-<row text>.json.
     */
    async function copilotFormOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-copilot-form .+ :: .+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, text, answer] = /ui-copilot-form (.+?) :: (.+)$/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!text || done.has(`copilot-form-${text}`)) {
            return;
        }
        done.add(`copilot-form-${text}`);
        const read = async locator => ((await locator.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
        const center = page.locator('.notifications-center');
        const row = taskRow(page, text);
        log(`[ui] clicking the inline Respond of ${text} (VS Code's own client asks a form)`);
        await row.hover();
        await rowAction(row, 'Respond').click();
        await center.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => log('[ui] the Notifications Center did not open'));
        const question = center.locator('.notification-list-item', { has: page.getByRole('button', { name: 'Respond', exact: true }) }).first();
        const report = { centerAfterClick: await center.isVisible().catch(() => false), message: await read(question.locator('.notification-list-item-message')), source: await read(question.locator('.notification-list-item-source')), steps: [] };
        await shot(page, 'copilot-form-question');
        const widget = page.locator(QUICK_INPUT);
        try {
            await question.getByRole('button', { name: 'Respond', exact: true }).click();
            await widget.waitFor({ timeout: 10_000 });
            for (let step = 0; step < 30 && (await widget.isVisible().catch(() => false)); step++) {
                const title = await read(widget.locator('.quick-input-title'));
                if (step === 0) {
                    await shot(page, 'copilot-form-first-field');
                    await widget.locator('input').first().fill(answer);
                    await widget.locator('.monaco-list-row.focused', { hasText: answer }).first().waitFor({ timeout: 5000 }).catch(() => log(`[ui] no "${answer}" row to accept`));
                }
                report.steps.push({ title, accepted: (await activeRow(widget))?.label });
                await page.keyboard.press('Enter');
                // The next field replaces this one in the same pick; the last one closes it.
                await page
                    .waitForFunction(
                        shown => {
                            const node = document.querySelector('.quick-input-widget');
                            return !node || node.offsetParent === null || node.querySelector('.quick-input-title')?.textContent?.trim() !== shown;
                        },
                        title,
                        { timeout: 10_000 },
                    )
                    .catch(() => log(`[ui] the form stayed on "${title}"`));
            }
        } finally {
            writeReport(`copilot-form-${text}.json`, report);
        }
        log(`[ui] answered VS Code's form "${report.message}" in ${report.steps.length} steps`);
    }

    /**
     * The suite asks "ui-row-menu <row text>" in the status bar: the driver opens that row's context
     * menu with a right click, writes its item titles to row-menu-<row text>.json, and closes it.
     */
    async function readRowMenuOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-row-menu \S+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, text] = /ui-row-menu (\S+)/.exec((await request.textContent()) ?? '') ?? [];
        if (!text || done.has(`menu-${text}`)) {
            return;
        }
        done.add(`menu-${text}`);
        log(`[ui] opening the context menu of ${text}`);
        await taskRow(page, text).click({ button: 'right' });
        const menu = page.locator('.monaco-menu').first();
        await menu.waitFor({ timeout: 5000 });
        const items = (await menu.locator('.action-item:not(.disabled) .action-label').allTextContents()).map(label => label.trim()).filter(Boolean);
        writeReport(`row-menu-${text}.json`, items);
        log(`[ui] the context menu of ${text} offers: ${items.join(' | ')}`);
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => log('[ui] the context menu stayed open'));
    }

    /**
     * The suite opens the Workspace Trust editor and asks "ui-trust-workspace" in the status bar:
     * the driver clicks the editor's Trust button, as a user grants trust (no API grants it).
     */
    async function trustOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: 'ui-trust-workspace' }).first();
        if (done.has('trust') || !(await request.isVisible().catch(() => false))) {
            return;
        }
        const editor = page.locator('.workspace-trust-editor').first();
        if (!(await editor.isVisible().catch(() => false))) {
            return;
        }
        done.add('trust');
        await shot(page, 'workspace-restricted');
        log('[ui] clicking Trust in the Workspace Trust editor');
        // Its accessible name carries the keybinding: "Trust, Keyboard Shortcut: Ctrl+Enter".
        await editor.getByRole('button', { name: /^Trust(,|$)/ }).first().click();
    }

    /** The quick input as shown: its title, placeholder, rows and the active row; undefined when none is open. */
    async function readQuickInput(page) {
        const widget = page.locator(QUICK_INPUT);
        if (!(await widget.isVisible().catch(() => false))) {
            return undefined;
        }
        const text = async locator => ((await locator.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
        const rows = widget.locator('.monaco-list-row');
        const choices = [];
        for (let i = 0; i < (await rows.count()); i++) {
            // The row's accessible name holds its whole text: label, description and detail.
            choices.push({ label: await text(rows.nth(i).locator('.label-name')), description: await text(rows.nth(i).locator('.label-description')), aria: (await rows.nth(i).getAttribute('aria-label').catch(() => '')) ?? '' });
        }
        return {
            title: await text(widget.locator('.quick-input-title')),
            placeholder: (await widget.locator('input').first().getAttribute('placeholder').catch(() => '')) ?? '',
            choices,
            active: await activeRow(widget),
        };
    }

    /** The Notifications Center's items: message, source and buttons (the smoke-test driver shows no toasts). */
    async function readNotifications(page) {
        const center = page.locator('.notifications-center');
        const text = async locator => ((await locator.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
        const items = center.locator('.notification-list-item');
        const found = [];
        for (let i = 0; i < (await items.count()); i++) {
            const item = items.nth(i);
            found.push({
                message: await text(item.locator('.notification-list-item-message')),
                source: await text(item.locator('.notification-list-item-source')),
                buttons: (await item.locator('.monaco-button').allTextContents().catch(() => [])).map(label => label.trim()).filter(Boolean),
            });
        }
        return found;
    }

    /**
     * The suite asks "ui-title-action <title> :: <tag>": the driver clicks that action in the Tasks view's
     * title bar (as a user does, with whatever row is focused), then writes title-action-<tag>.json with
     * the quick input that opened (if any) and photographs it, and closes the quick input.
     */
    async function titleActionOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-title-action .+ :: \S+/ }).first();
        if (!(await request.isVisible().catch(() => false))) {
            return;
        }
        const [, title, tag] = /ui-title-action (.+?) :: (\S+)/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!tag || done.has(`title-${tag}`)) {
            return;
        }
        done.add(`title-${tag}`);
        // The view is its container's only one: its actions sit in the sidebar's title, shown while the pointer is over it.
        const header = page.locator('.part.sidebar .composite.title').first();
        await header.hover();
        log(`[ui] clicking ${title} in the Tasks view's title bar`);
        await header.getByRole('button', { name: new RegExp(`^${title}`) }).first().click();
        await page.locator(QUICK_INPUT).waitFor({ timeout: 5000 }).catch(() => log(`[ui] no quick input after ${title}`));
        const quickInput = await readQuickInput(page);
        await shot(page, `title-action-${tag}`);
        writeReport(`title-action-${tag}.json`, { quickInput });
        if (quickInput) {
            await page.keyboard.press('Escape');
        }
    }

    /**
     * The suite asks "ui-title-buttons <tag>": the driver hovers the Tasks view's title bar, writes
     * title-buttons-<tag>.json (each button's name, left edge and whether it is enabled) and photographs the sidebar.
     */
    async function titleButtonsOnRequest(page) {
        const [, tag] = (await takeRequest(page, /ui-title-buttons (\S+)/, 'title-buttons')) ?? [];
        if (!tag) {
            return;
        }
        const header = page.locator('.part.sidebar .composite.title').first();
        await header.hover();
        // The title's actions show while the pointer is over it: read them once they are drawn and stay put.
        const labels = header.locator('.actions-container .action-item .action-label');
        await labels.first().waitFor({ timeout: REPORT_MS }).catch(() => log('[ui] no buttons in the Tasks view\'s title bar'));
        if (!(await layoutSettled(labels))) {
            log('[ui] the title bar\'s buttons were still moving; reading them as they are');
        }
        const buttons = await labels.evaluateAll(labels =>
            labels.map(label => ({
                name: label.getAttribute('aria-label') ?? '',
                left: Math.round(label.getBoundingClientRect().left),
                enabled: !label.classList.contains('disabled') && label.getAttribute('aria-disabled') !== 'true',
            })),
        );
        await shot(page, `title-buttons-${tag}`, page.locator('.part.sidebar'));
        writeReport(`title-buttons-${tag}.json`, buttons);
    }

    /**
     * The suite opens a walkthrough and asks "ui-walkthrough <tag>": the driver reads its description as the
     * page draws it (its text, and whether the page clips it: it shows at most three lines), writes
     * walkthrough-<tag>.json and photographs the page.
     */
    async function walkthroughOnRequest(page) {
        const [, tag] = (await takeRequest(page, /ui-walkthrough (\S+)/, 'walkthrough')) ?? [];
        if (!tag) {
            return;
        }
        const description = page.locator('.gettingStartedContainer .category-description[x-category-description-for]').first();
        await description.waitFor({ timeout: REPORT_MS }).catch(() => log('[ui] no walkthrough description'));
        // The page slides in and its fonts arrive after the element shows: whether it clips is read once it stays put.
        if (!(await layoutSettled(description))) {
            log('[ui] the walkthrough description was still moving; reading it as it is');
        }
        const read = await description
            .evaluate(el => ({ text: el.textContent ?? '', clipped: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1, width: el.clientWidth }))
            .catch(() => ({ text: '', clipped: true, width: 0 }));
        await shot(page, `walkthrough-${tag}`);
        writeReport(`walkthrough-${tag}.json`, read);
    }

    /**
     * The suite opens the Welcome page and asks "ui-welcome-walkthroughs": the driver reads each entry of its
     * Walkthroughs list (title, and whether the title is cut), writes welcome-walkthroughs.json and photographs the page.
     */
    async function welcomeWalkthroughsOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-welcome-walkthroughs/ }).first();
        if (!(await request.isVisible().catch(() => false)) || done.has('welcome-walkthroughs')) {
            return;
        }
        const entries = page.locator('.gettingStartedContainer button.getting-started-category');
        if (!(await entries.first().waitFor({ timeout: 10_000 }).then(() => true, () => false))) {
            return;
        }
        done.add('welcome-walkthroughs');
        // As for a walkthrough: whether a title is cut is read once the list stays put.
        if (!(await layoutSettled(entries))) {
            log('[ui] the Welcome page\'s walkthroughs were still moving; reading them as they are');
        }
        const read = await entries.evaluateAll(buttons =>
            buttons.map(button => {
                const title = button.querySelector('.category-title');
                return { title: title?.textContent ?? '', clipped: !title || title.scrollWidth > title.clientWidth + 1 || title.scrollHeight > title.clientHeight + 1 };
            }),
        );
        await shot(page, 'welcome-walkthroughs');
        writeReport('welcome-walkthroughs.json', read);
    }

    /**
     * The suite asks "ui-notifications <tag>" (or "ui-notifications <tag> :: <button>"): the driver opens the
     * Notifications Center, writes notifications-<tag>.json with its items, photographs the workbench,
     * clicks that button on the newest item offering it (if asked), and closes the center.
     */
    async function notificationsOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-notifications \S+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, tag, button] = /ui-notifications (\S+)(?: :: (.+))?$/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!tag || done.has(`notifications-${tag}`)) {
            return;
        }
        done.add(`notifications-${tag}`);
        const center = page.locator('.notifications-center');
        const bell = page.locator('[id="status.notifications"]').first();
        if (!(await center.isVisible().catch(() => false))) {
            await bell.click().catch(() => undefined);
            await center.waitFor({ state: 'visible', timeout: 5000 }).catch(() => log('[ui] the Notifications Center did not open'));
        }
        const items = await readNotifications(page);
        await shot(page, `notifications-${tag}`);
        // Only a button the read found: waiting for one to come would hold up every other request (the
        // suite reads again until it sees the notification). The pointer leaves the bell first: the bell's
        // hover can cover the newest item's buttons.
        if (button && items.some(item => item.buttons.includes(button))) {
            await page.mouse.move(700, 300);
            const item = center.locator('.notification-list-item', { has: page.getByRole('button', { name: button, exact: true }) }).first();
            log(`[ui] clicking ${button} in a notification`);
            await item.getByRole('button', { name: button, exact: true }).click({ timeout: 10_000 }).catch(err => log(`[ui] no ${button} button: ${err.message}`));
        }
        writeReport(`notifications-${tag}.json`, items);
        if (await center.isVisible().catch(() => false)) {
            await bell.click().catch(() => undefined);
        }
    }

    /**
     * The suite asks "ui-row-twice <row text> :: <action title>": the driver clicks that inline button,
     * then clicks the same spot again without moving as soon as the row has changed under the pointer,
     * as a hurried user does whose second click lands on whatever button is there by then, and
     * photographs the row (row-twice-<row text>.png). Waiting for the change, not a fixed interval:
     * on a loaded machine the row can take longer than any interval to be redrawn, and a second
     * click on the first button would test nothing.
     */
    async function rowTwiceOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-row-twice .+ :: .+/ }).first();
        if (!(await request.isVisible().catch(() => false)) || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
            return;
        }
        const [, text, title] = /ui-row-twice (.+?) :: (.+)$/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!text || done.has(`twice-${text}`)) {
            return;
        }
        const row = taskRow(page, text);
        await row.hover();
        // The button shows while the row is hovered: on a loaded machine it can take a moment.
        const button = rowAction(row, title);
        const box = await button.waitFor({ timeout: 5000 }).then(() => button.boundingBox(), () => null);
        if (!box) {
            // Looked for again on the next pass.
            log(`[ui] no ${title} on the row of ${text} yet`);
            return;
        }
        done.add(`twice-${text}`);
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        const underPointer = () => page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.getAttribute('aria-label') ?? '', [x, y]);
        // The button under the pointer, by its name ('' between two drawings of the row, when none is there).
        const buttonThere = () => page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.closest('.action-label, [role="button"]')?.getAttribute('aria-label') ?? '', [x, y]);
        const first = await buttonThere();
        log(`[ui] clicking ${title} on the row of ${text}, and the same spot again once another button is there`);
        await page.mouse.click(x, y);
        const changed = await pollFor(async () => {
            const now = await buttonThere();
            return now && now !== first ? now : undefined;
        }, { timeoutMs: REPORT_MS, everyMs: 20 });
        if (changed === undefined) {
            log(`[ui] no other button took the place of ${title} on the row of ${text} in ${REPORT_MS / 1000} s; clicking again anyway`);
        }
        const under = await underPointer();
        await page.mouse.click(x, y);
        // The picture shows the row after the second click.
        await painted(page);
        await shot(page, `row-twice-${text}`, page.locator('.part.sidebar'));
        // Leave no row hovered: a hovered row shows its buttons over its text, which later suites read.
        await page.mouse.move(700, 450);
        writeReport(`row-twice-${text}.json`, { secondClickOn: under });
    }

    /**
     * The suite opens an extension's details page and asks "ui-readme-images <tag>": the driver waits for
     * the README's images in the page's webview frame to load (or fail), writes readme-images-<tag>.json
     * (each image's alt text, scheme and whether it drew) and photographs the workbench.
     */
    async function readmeImagesOnRequest(page) {
        const [, tag] = (await takeRequest(page, /ui-readme-images (\S+)/, 'readme')) ?? [];
        if (!tag) {
            return;
        }
        /** The frame the README is drawn in, once read() found it. */
        let readme;
        const read = async () => {
            for (const frame of page.frames()) {
                const images = await frame
                    .evaluate(() =>
                        [...document.querySelectorAll('img')].map(img => ({
                            alt: img.alt,
                            scheme: (img.getAttribute('src') ?? '').split(':')[0],
                            complete: img.complete,
                            drawn: img.complete && img.naturalWidth > 0,
                        })),
                    )
                    .catch(() => []);
                // The details page's README: the frame whose images carry alt text.
                if (images.some(image => image.alt)) {
                    readme = frame;
                    return images;
                }
            }
            return [];
        };
        // The suite has listed the extension in the Extensions view: open its details page as a user does.
        const entry = page.locator('.part.sidebar .monaco-list-row', { hasText: /MCP Tasks/ }).first();
        if (await entry.waitFor({ timeout: 10_000 }).then(() => true, () => false)) {
            log('[ui] opening the details page of MCP Tasks from the Extensions view');
            await entry.click();
            await page.locator('.extension-editor').first().waitFor({ timeout: 10_000 }).catch(() => log('[ui] no details page opened'));
        }
        // Each image has loaded or failed: what it drew is then final. The report says which if some never settle.
        let images = [];
        const settled = await pollFor(async () => {
            images = await read();
            return images.length > 0 && images.every(image => image.complete);
        }, { timeoutMs: REPORT_MS });
        if (!settled) {
            log(`[ui] the README's images had not all loaded or failed after ${REPORT_MS / 1000} s`);
        }
        // Scroll the first image into view for the picture, and let the workbench draw it there. The page's own
        // frame is the one waited on: the README's webview frame runs no animation frames here (seen: never in 10 s).
        if (readme) {
            await readme.evaluate(() => document.querySelector('img[alt]')?.scrollIntoView()).catch(() => undefined);
            if (!(await painted(page))) {
                log('[ui] the workbench drew no frame after the scroll');
            }
        }
        // The picture first: the suite closes the page once it has the report.
        await shot(page, `extension-details-${tag}`);
        writeReport(`readme-images-${tag}.json`, images);
        log(`[ui] the README shows ${images.length} image(s): ${images.map(image => `${image.alt.slice(0, 30)} ${image.drawn ? 'drawn' : 'NOT drawn'}`).join(' | ')}`);
    }

    /**
     * The suite shows a task's result and asks "ui-result <name>": the driver waits for the Markdown preview
     * to draw it, photographs the workbench (result-<name>.png) and writes result-<name>.json: the text as
     * drawn, each preformatted block's text, and the links. "ui-result <name> click" then clicks the first link.
     */
    async function resultOnRequest(page) {
        const [, name, click] = (await takeRequest(page, /ui-result (\S+)( click)?/, 'result')) ?? [];
        if (!name) {
            return;
        }
        let drawn;
        let drawnIn;
        await pollFor(async () => {
            for (const frame of page.frames()) {
                // The preview's frame: the one whose document has the result's heading.
                const read = await frame
                    .evaluate(() => {
                        const heading = document.querySelector('h1');
                        return heading
                            ? {
                                  text: document.body.innerText,
                                  pre: [...document.querySelectorAll('pre')].map(block => block.innerText),
                                  links: [...document.querySelectorAll('a')].map(link => ({ text: link.innerText, href: link.getAttribute('href') })),
                              }
                            : undefined;
                    })
                    .catch(() => undefined);
                if (read) {
                    drawn = read;
                    drawnIn = frame;
                    return true;
                }
            }
            return false;
        }, { timeoutMs: REPORT_MS });
        if (!drawn) {
            log(`[ui] no Markdown preview drew the result ${name} in ${REPORT_MS / 1000} s`);
        }
        await shot(page, `result-${name}`);
        if (click && drawnIn) {
            log(`[ui] clicking the result's first link`);
            await drawnIn.locator('a').first().click().catch(err => log(`[ui] the click failed: ${err.message}`));
        }
        writeReport(`result-${name}.json`, drawn ?? { text: '', pre: [], links: [] });
    }

    /**
     * The suite asks "ui-editor-action <title> :: <tag>": the driver photographs the workbench
     * (editor-action-<tag>.png) and clicks that action in the active editor's title bar, as a user does.
     */
    async function editorActionOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-editor-action .+ :: \S+/ }).first();
        if (!(await request.isVisible().catch(() => false))) {
            return;
        }
        const [, title, tag] = /ui-editor-action (.+?) :: (\S+)/.exec(((await request.textContent()) ?? '').trim()) ?? [];
        if (!tag || done.has(`editor-action-${tag}`)) {
            return;
        }
        const button = page.locator('.part.editor .editor-group-container.active .editor-actions').getByRole('button', { name: new RegExp(`^${title}`) }).first();
        if (!(await button.isVisible().catch(() => false))) {
            return;
        }
        done.add(`editor-action-${tag}`);
        await button.hover();
        await shot(page, `editor-action-${tag}`);
        log(`[ui] clicking ${title} in the editor's title bar`);
        await button.click();
        writeReport(`editor-action-${tag}.json`, { clicked: title });
    }

    /**
     * The suite asks "ui-terminal <tag>": the driver writes terminal-<tag>.json with the text of the
     * terminal the panel shows (its drawn rows) and photographs the workbench (terminal-<tag>.png).
     */
    async function terminalOnRequest(page) {
        const request = page.locator('.part.statusbar .statusbar-item', { hasText: /ui-terminal \S+/ }).first();
        if (!(await request.isVisible().catch(() => false))) {
            return;
        }
        const [, tag] = /ui-terminal (\S+)/.exec((await request.textContent()) ?? '') ?? [];
        if (!tag || done.has(`terminal-${tag}`)) {
            return;
        }
        const terminal = page.locator('.part.panel .xterm').filter({ visible: true }).first();
        if (!(await terminal.isVisible().catch(() => false))) {
            return;
        }
        done.add(`terminal-${tag}`);
        // The DOM renderer draws rows as text (no GPU here); the screen reader's buffer is the other place it shows.
        const { text, from } = await terminal.evaluate(element => {
            const rows = element.querySelector('.xterm-rows');
            if (rows && rows.textContent.trim()) {
                return { text: [...rows.children].map(row => row.textContent).join('\n'), from: 'rows' };
            }
            const a11y = element.querySelector('.xterm-accessibility-tree, .xterm-accessibility');
            return { text: a11y?.textContent ?? '', from: a11y ? 'accessibility' : 'none' };
        });
        await shot(page, `terminal-${tag}`);
        writeReport(`terminal-${tag}.json`, { text, from });
        log(`[ui] the terminal shows ${text.split('\n').filter(Boolean).length} line(s) (read from its ${from})`);
    }

    /**
     * The suite asks "ui-enter-question <tag>" once a question is open: the driver notes where the
     * keyboard focus is (question-focus-<tag>.json: inside the question or not, and what holds it),
     * photographs the workbench (question-focus-<tag>.png) and presses Enter where the focus is, as a
     * user who just saw the question would. It never clicks or focuses the question first.
     */
    async function enterOnQuestionOnRequest(page) {
        const [, tag] = (await takeRequest(page, /ui-enter-question (\S+)/, 'enter-question')) ?? [];
        if (!tag) {
            return;
        }
        await layoutSettled(page.locator(QUICK_INPUT));
        const focus = await page.evaluate(() => {
            const active = document.activeElement;
            const label = active?.getAttribute('aria-label') ?? active?.textContent?.slice(0, 80) ?? '';
            return { inQuestion: Boolean(active?.closest('.quick-input-widget')), inTree: Boolean(active?.closest('.part.sidebar')), activeTag: active?.tagName ?? '', activeLabel: label };
        });
        const title = ((await page.locator(`${QUICK_INPUT} .quick-input-title`).textContent().catch(() => '')) ?? '').trim();
        writeReport(`question-focus-${tag}.json`, { ...focus, title });
        await shot(page, `question-focus-${tag}`);
        log(`[ui] the focus is ${focus.inQuestion ? 'in the question' : `elsewhere (${focus.activeTag} "${focus.activeLabel}")`}; pressing Enter`);
        await page.keyboard.press('Enter');
    }

    /**
     * The suite asks "ui-keys <tag> :: <key> <key> ...": the driver presses those keys where the focus
     * is, as a keyboard user does, waiting for a drawn frame after each. `type:<text>` types that text
     * (`~` for a space), a key per character; `wait:<text>` waits for a quick input showing that text (`~` for a
     * space) in its title or placeholder, `row:<text>` for that row of the Tasks view, `focus-in:<part>` for the keyboard to be in that
     * workbench part (sidebar, statusbar, editor…), and `look` does
     * nothing (the report then says where the focus is). Five more steps are not keys:
     * `mark:<name>` writes mark-<name>.json when the keys reach it, `sidebar-width:<px>` drags the
     * side bar's edge to make it that wide,
     * `click:<row text>` clicks that row of the Tasks view (it selects it), and `focus:<row text>`
     * moves the focus there with the arrow keys, the selection staying where it was, and `in:question`
     * puts the focus in the open quick input. It writes
     * keys-<tag>.json: the focused and the selected rows' names, the open quick input's title if
     * any, the focused element's name, role and part, the activity bar's MCP Tasks
     * name, and how many keys it pressed.
     */
    async function keysOnRequest(page) {
        const [asked, tag, steps] = (await takeRequest(page, /ui-keys (\S+) :: (.+)$/, 'keys')) ?? [];
        if (!asked) {
            return;
        }
        const rowName = selector => page.evaluate(sel => [...document.querySelectorAll(sel)].map(row => row.getAttribute('aria-label') ?? ''), selector);
        const focusedRow = async () => (await rowName(`${TREE_ROW}.focused`))[0] ?? '';
        let pressed = 0;
        for (const step of steps.trim().split(/\s+/)) {
            if (step === 'in:question') {
                // Where a user who sees the question is: in it (it may have opened without the focus).
                await page.locator(QUICK_INPUT).locator('input').first().focus();
            } else if (step.startsWith('wait:')) {
                // A quick input opens after a round trip to the extension: keys pressed before it is up go elsewhere.
                const text = step.slice('wait:'.length).replaceAll('~', ' ');
                await page
                    .waitForFunction(
                        wanted => {
                            const widget = document.querySelector('.quick-input-widget');
                            const shown = widget && getComputedStyle(widget).display !== 'none' ? `${widget.querySelector('.quick-input-title')?.textContent ?? ''} ${widget.querySelector('input')?.getAttribute('placeholder') ?? ''}` : '';
                            return shown.includes(wanted);
                        },
                        text,
                        { timeout: 10_000 },
                    )
                    .catch(() => log(`[ui] keys ${tag}: no quick input showed "${text}"`));
            } else if (step.startsWith('row:')) {
                const row = taskRow(page, step.slice('row:'.length));
                await row.waitFor({ timeout: 10_000 }).catch(() => log(`[ui] keys ${tag}: no row ${step.slice('row:'.length)} drawn`));
            } else if (step.startsWith('focus-in:')) {
                // Where the keyboard goes after something the extension does in its own time (an answer's follow-up).
                const part = step.slice('focus-in:'.length);
                await page
                    .waitForFunction(name => Boolean(document.activeElement?.closest(`.part.${name}`)), part, { timeout: 10_000 })
                    .catch(() => log(`[ui] keys ${tag}: the keyboard did not reach the ${part}`));
            } else if (step.startsWith('mark:')) {
                // The suite waits for mark-<name>.json to do something at this point of the keys (a task arriving).
                writeReport(`mark-${step.slice('mark:'.length)}.json`, { at: Date.now() });
            } else if (step.startsWith('sidebar-width:')) {
                // Drags the side bar's edge with the pointer, as a user narrows or widens it (VS Code stops it at 170 px).
                const box = await page.locator('.part.sidebar').boundingBox();
                if (box) {
                    const y = box.y + box.height / 2;
                    await page.mouse.move(box.x + box.width, y);
                    await page.mouse.down();
                    await page.mouse.move(box.x + Number(step.slice('sidebar-width:'.length)), y, { steps: 8 });
                    await page.mouse.up();
                    await page.mouse.move(700, 450);
                }
            } else if (step === 'look') {
                // Nothing pressed: the report says where the focus is now.
            } else if (step.startsWith('type:')) {
                // Typed as a user types it: one key per character (`~` for a space).
                await page.keyboard.type(step.slice('type:'.length).replaceAll('~', ' '));
                pressed += step.length - 'type:'.length;
            } else if (step.startsWith('click:')) {
                await taskRow(page, step.slice('click:'.length)).click();
            } else if (step.startsWith('focus:')) {
                const text = step.slice('focus:'.length);
                const index = async selector => Number((await page.locator(selector).first().getAttribute('data-index').catch(() => null)) ?? -1);
                for (let i = 0; i < 30 && !(await focusedRow()).includes(text); i++) {
                    const target = await index(`${TREE_ROW}[aria-label*=${JSON.stringify(text)}]`);
                    await page.keyboard.press(target < (await index(`${TREE_ROW}.focused`)) ? 'ArrowUp' : 'ArrowDown');
                    pressed++;
                    await painted(page);
                }
            } else {
                await page.keyboard.press(step);
                pressed++;
            }
            await painted(page);
        }
        const widget = page.locator(QUICK_INPUT);
        const quickInput = (await widget.isVisible().catch(() => false)) ? ((await widget.locator('.quick-input-title').textContent().catch(() => '')) ?? '') : undefined;
        const report = {
            focused: await focusedRow(),
            selected: await rowName(`${TREE_ROW}.selected`),
            quickInput,
            activeElement: await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.slice(0, 80) ?? ''),
            // Where that element is: its role and the workbench part holding it (a name alone can be ambiguous).
            activeRole: await page.evaluate(() => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName.toLowerCase() ?? ''),
            activePart: await page.evaluate(() => /\bpart (\w+)/.exec(document.activeElement?.closest('.part')?.className ?? '')?.[1] ?? (document.activeElement?.closest('.quick-input-widget') ? 'quickinput' : document.activeElement?.closest('.monaco-dialog-box') ? 'dialog' : '')),
            // The activity bar's MCP Tasks item as a screen reader names it (its badge's words included).
            activity: await page.evaluate(() => [...document.querySelectorAll('.part.activitybar .action-label')].map(a => a.getAttribute('aria-label') ?? '').find(name => name.startsWith('MCP Tasks')) ?? ''),
            pressed,
        };
        log(`[ui] keys ${tag}: ${steps} (${pressed} keys); focus on "${report.focused}"`);
        await shot(page, `keys-${tag}`);
        writeReport(`keys-${tag}.json`, report);
    }

    /**
     * The suite asks "ui-live-record <tag>", later "ui-live-read <tag>": from the first, the page
     * records every text a screen reader is handed without the user moving (what changes inside an
     * `aria-live` region, a `role=alert` or `role=status` element, or such an element's name);
     * the second writes them to live-<tag>.json, in order, a repeat of the one before left out.
     */
    async function liveOnRequest(page) {
        const [, recordTag] = (await takeRequest(page, /ui-live-record (\S+)/, 'live-record')) ?? [];
        if (recordTag) {
            await page.evaluate(() => {
                const heard = (window.__mcpTasksLive = []);
                const LIVE = '[aria-live]:not([aria-live="off"]), [role="alert"], [role="status"]';
                const note = node => {
                    const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
                    // The status bar as a whole is a status region: its items are read when focused, not as they change.
                    const region = element?.closest(LIVE);
                    if (region?.classList.contains('statusbar')) {
                        return;
                    }
                    const text = (region?.getAttribute('aria-label') || region?.textContent || '').trim();
                    if (region && text && heard.at(-1) !== text) {
                        heard.push(text);
                    }
                };
                new MutationObserver(mutations => mutations.forEach(m => note(m.target))).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-label'] });
            });
            log(`[ui] recording live regions for ${recordTag}`);
            writeReport(`live-record-${recordTag}.json`, { recording: true });
        }
        const [, readTag] = (await takeRequest(page, /ui-live-read (\S+)/, 'live-read')) ?? [];
        if (readTag) {
            const heard = await page.evaluate(() => window.__mcpTasksLive ?? []);
            log(`[ui] ${heard.length} live texts for ${readTag}`);
            writeReport(`live-${readTag}.json`, heard);
        }
    }

    /** The suite asks "ui-shot <name>": the driver photographs the workbench (workbench <name>.png). */
    async function shotOnRequest(page) {
        const [, name] = (await takeRequest(page, /ui-shot (\S+)/, 'shot')) ?? [];
        if (!name) {
            return;
        }
        // The request itself is in the status bar: the picture is of the rest.
        await shot(page, name);
    }

    /** The runner's onPage hook: acts until the page closes (the suite ended). */
    return async function onPage(page) {
        if (repository) {
            await page.context().route(`${repository.url}**`, async route => {
                const path = join(repository.root, decodeURIComponent(new URL(route.request().url()).pathname.slice(new URL(repository.url).pathname.length)));
                log(`[ui] serving ${route.request().url()} from ${path}`);
                await route.fulfill({ path }).catch(() => route.fulfill({ status: 404 }));
            });
        }
        while (!page.isClosed()) {
            for (const step of [answerPrompt, enterOnQuestionOnRequest, keysOnRequest, liveOnRequest, readmeImagesOnRequest, rowTwiceOnRequest, titleActionOnRequest, titleButtonsOnRequest, walkthroughOnRequest, welcomeWalkthroughsOnRequest, notificationsOnRequest, shotOnRequest, respondOnRequest, copilotRespondOnRequest, copilotFormOnRequest, rowActionOnRequest, rowClickOnRequest, terminalOnRequest, editorActionOnRequest, readRowsOnRequest, ariaOnRequest, contrastOnRequest, readRowMenuOnRequest, rowTooltipOnRequest, trustOnRequest, resultOnRequest, readToolApprovals, allowSampling, cancelFromTree, photographDeploy]) {
                try {
                    await step(page);
                } catch (err) {
                    if (page.isClosed()) {
                        return;
                    }
                    log(`[ui] ${step.name}: ${err.message.split('\n')[0]}`);
                }
            }
            // The driver watches for several unrelated states at once: this is how often it looks, not a wait for one of them.
            await delay(250);
        }
    };
}
