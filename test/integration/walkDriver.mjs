// Drives the workbench for the README walk (readmeWalk.test.ts) as a user does, step by step, and reads
// what a user sees at each step. The suite writes a request file (request-<seq>.json: a name and a list
// of actions) into the walk's folder; the driver performs the actions in order, photographs the workbench
// where an action or the request asks (<journey>-<step>.png), and writes <name>.json with the text of each
// picture. A file, not a status bar message, carries the request: the pictures and the text stay the user's.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollFor, STATE_MS } from './pageWaits.mjs';

const QUICK_INPUT = '.quick-input-widget';
const TREE_ROW = '.part.sidebar .monaco-list-row';
const HOVER = '.monaco-hover, .workbench-hover, .monaco-hover-content';

/**
 * Everything a user can read on the page right now: the rendered text of the workbench, and the
 * accessible names, tooltips and placeholders of the elements drawn (what a screen reader says and a
 * pointer shows). Runs in the page.
 */
function readPage() {
    const drawn = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const texts = [{ where: 'page', text: document.body.innerText }];
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [aria-description]')) {
        if (!drawn(el)) {
            continue;
        }
        for (const attribute of ['aria-label', 'title', 'placeholder', 'aria-description']) {
            const value = el.getAttribute(attribute);
            if (value) {
                texts.push({ where: `${attribute} of ${el.className && typeof el.className === 'string' ? el.className.split(' ')[0] : el.tagName.toLowerCase()}`, text: value });
            }
        }
    }
    return texts;
}

/** Whether a frame is drawn: its element, and each enclosing frame's, shows (the extension host's worker frame does not). */
async function frameShown(frame) {
    for (let at = frame; at.parentFrame(); at = at.parentFrame()) {
        const element = await at.frameElement().catch(() => undefined);
        if (!element || !(await element.isVisible().catch(() => false))) {
            return false;
        }
    }
    return true;
}

/** The page's text and that of every frame it draws (webviews: a result's preview, an extension's details). */
async function readAll(page) {
    const texts = await page.evaluate(readPage);
    for (const frame of page.frames()) {
        if (frame === page.mainFrame() || !(await frameShown(frame))) {
            continue;
        }
        const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (text.trim()) {
            texts.push({ where: `frame ${frame.url().split('?')[0].slice(0, 80)}`, text });
        }
    }
    return texts;
}

export function createWalkDriver(dir, log = line => console.log(line)) {
    // An earlier run's request files would be taken for this run's.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let next = 0;

    /** Photographs the workbench as `name`.png and reads its text. */
    async function snapshot(page, name, shots) {
        // Let a drawing in progress (a hover fading in, a row redrawn) settle for one frame.
        await page.evaluate(() => new Promise(resolve => requestAnimationFrame(() => resolve())));
        await page.screenshot({ path: join(dir, `${name}.png`) }).catch(err => log(`[walk] screenshot ${name} failed: ${err.message}`));
        const sidebar = await page.evaluate(() => Math.round(document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0));
        // Where the keyboard is as the picture is taken: in a question (the quick input), or where.
        const focus = await page.evaluate(() => {
            const at = document.activeElement;
            return { inQuestion: Boolean(at?.closest('.quick-input-widget')), label: at?.getAttribute('aria-label') ?? at?.tagName ?? '' };
        });
        shots.push({ name, texts: await readAll(page), sidebarWidth: sidebar, viewport: page.viewportSize(), focus });
        log(`[walk] ${name}.png`);
    }

    function taskRow(page, text) {
        return page.locator(`${TREE_ROW}[aria-label*=${JSON.stringify(text)}]`).first();
    }

    /** The prompt open now (its title), once one is open whose title matches `title` (a regex source); throws if none opens. */
    async function openPrompt(page, title) {
        const widget = page.locator(QUICK_INPUT);
        // Read in the page itself, where a look costs no round trip.
        const read = await page
            .waitForFunction(
                wanted => {
                    const shown = document.querySelector('.quick-input-widget');
                    if (!shown || shown.offsetParent === null) {
                        return undefined;
                    }
                    const titleText = (shown.querySelector('.quick-input-title')?.textContent ?? '').trim();
                    const placeholder = shown.querySelector('input')?.getAttribute('placeholder') ?? '';
                    // What the prompt says: its title, hint and the message under the input (which names the field).
                    const says = `${titleText} ${placeholder} ${shown.innerText ?? ''}`;
                    return !wanted || new RegExp(wanted).test(says) ? { shown: titleText, says } : undefined;
                },
                title,
                { polling: 100, timeout: STATE_MS },
            )
            .then(handle => handle.jsonValue(), () => undefined);
        if (!read) {
            throw new Error(title ? `no prompt matching /${title}/ opened` : 'no prompt opened');
        }
        return { widget, ...read };
    }

    const actions = {
        /** Clicks an action in the Tasks view's title bar; with `opensPrompt`, again until a quick input shows (a focus change can close it at once). */
        async clickTitle(page, { name, opensPrompt }) {
            const header = page.locator('.part.sidebar .composite.title').first();
            for (let attempt = 0; attempt < 3; attempt++) {
                await header.hover();
                await header.getByRole('button', { name: new RegExp(`^${name}`) }).first().click();
                if (!opensPrompt || (await page.locator(QUICK_INPUT).waitFor({ timeout: 10_000 }).then(() => true, () => false))) {
                    return;
                }
                log(`[walk] no prompt after ${name}; clicking again`);
            }
        },
        async answer(page, { title, value, choose, shot }, shots) {
            const { widget, shown } = await openPrompt(page, title);
            const input = widget.locator('input').first();
            if (shot) {
                await snapshot(page, shot, shots);
            }
            if (value !== undefined) {
                await input.fill(String(value));
            }
            if (choose) {
                // Filter the pick until the row whose label starts with `choose` is the active one.
                await input.fill(choose);
                await widget
                    .locator('.monaco-list-row.focused', { has: page.locator('.label-name', { hasText: new RegExp(choose.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }) })
                    .first()
                    .waitFor({ timeout: 10_000 });
            }
            await page.keyboard.press('Enter');
            // Answered: the prompt closes or the next one takes its place.
            await page.waitForFunction(
                answered => {
                    const open = document.querySelector('.quick-input-widget');
                    return !open || open.offsetParent === null || open.querySelector('.quick-input-title')?.textContent?.trim() !== answered;
                },
                shown,
                { timeout: 15_000 },
            );
        },
        /**
         * Run Tool… in the title bar, then the tool whose label starts with `choose` in its picker. Again from
         * the click if the picker closes before the choice (a tab closing a moment before takes the focus).
         */
        async pickTool(page, { choose, shot }, shots) {
            for (let attempt = 0; ; attempt++) {
                await actions.clickTitle(page, { name: 'Run Tool', opensPrompt: true });
                try {
                    await actions.answer(page, { title: 'Run Tool', choose, shot }, shots);
                    return;
                } catch (err) {
                    if (attempt === 2 || (await page.locator(QUICK_INPUT).isVisible().catch(() => false))) {
                        throw err;
                    }
                    log(`[walk] the tool picker closed before ${choose} was chosen; opening it again`);
                }
            }
        },
        /** Answers the prompts of a form in whatever order they come: each `answers` entry answers the prompt its `title` matches. */
        async form(page, { answers }, shots) {
            const pending = [...answers];
            while (pending.length > 0) {
                const { says } = await openPrompt(page);
                const index = pending.findIndex(answer => new RegExp(answer.title).test(says));
                if (index < 0) {
                    throw new Error(`a prompt no answer is for: "${says.replace(/\s+/g, ' ')}"`);
                }
                await actions.answer(page, pending.splice(index, 1)[0], shots);
            }
        },
        async escape(page, { title, shot }, shots) {
            const { widget } = await openPrompt(page, title);
            if (shot) {
                await snapshot(page, shot, shots);
            }
            await widget.locator('input').first().focus();
            await page.keyboard.press('Escape');
            await widget.waitFor({ state: 'hidden', timeout: 10_000 });
        },
        async rowAction(page, { row, title }) {
            const found = taskRow(page, row);
            await found.hover();
            await found.getByRole('button', { name: new RegExp(`^${title}( \\(.+\\))?$`) }).click();
            await page.mouse.move(1100, 600);
        },
        async rowMenu(page, { row, item, shot }, shots) {
            await taskRow(page, row).click({ button: 'right' });
            const menu = page.locator('.monaco-menu').first();
            await menu.waitFor({ timeout: 10_000 });
            if (shot) {
                await snapshot(page, shot, shots);
            }
            await menu.locator('.action-item:not(.disabled) .action-label', { hasText: new RegExp(`^${item}$`) }).first().click();
        },
        async hoverRow(page, { row, shot }, shots) {
            // A running row is redrawn as its progress changes, which can close its tooltip: point at it again.
            for (let attempt = 0; attempt < 3; attempt++) {
                await page.mouse.move(1100, 600);
                await taskRow(page, row).locator('.label-name').first().hover();
                if (await page.locator(HOVER).first().waitFor({ timeout: 5000 }).then(() => true, () => false)) {
                    break;
                }
                log(`[walk] no tooltip over the row of ${row} yet`);
            }
            await snapshot(page, shot, shots);
            await page.mouse.move(1100, 600);
        },
        /**
         * Hovers the status bar item whose id ends with `id` (VS Code prefixes the extension's id) and
         * photographs its tooltip, one that says `has` (a regex source) when given. The item is redrawn
         * as a task's progress changes, which can close its tooltip, and a tooltip shown elsewhere a
         * moment ago may still be fading out: point at it again until the shot holds its own.
         */
        async hoverStatus(page, { id, has, shot }, shots) {
            const item = page.locator(`.part.statusbar [id$=${JSON.stringify(id)}]`).first();
            const tooltip = has ? page.locator(HOVER, { hasText: new RegExp(has) }) : page.locator(HOVER);
            for (let attempt = 0; attempt < 3; attempt++) {
                await page.mouse.move(1100, 600);
                await item.hover();
                if (await tooltip.first().waitFor({ timeout: 5000 }).then(() => true, () => false)) {
                    await snapshot(page, shot, shots);
                    if (!has || new RegExp(has).test(JSON.stringify(shots.at(-1).texts))) {
                        break;
                    }
                    shots.pop();
                }
                log(`[walk] no tooltip over the status bar's ${id} yet`);
            }
            if (shots.at(-1)?.name !== shot) {
                await snapshot(page, shot, shots);
            }
            await page.mouse.move(1100, 600);
        },
        async clickStatus(page, { text }) {
            await page.locator('.part.statusbar .statusbar-item', { hasText: text }).first().click();
        },
        /** Opens the Notifications Center (the smoke-test driver shows no toasts), photographs it, presses `button` on the item holding `has`. */
        async notification(page, { has, button, shot }, shots) {
            const center = page.locator('.notifications-center');
            const bell = page.locator('[id="status.notifications"]').first();
            const item = center.locator('.notification-list-item', { hasText: has }).first();
            // Open the center (the bell toggles it, so only when it is closed: something may close it again) until it lists the item.
            const shown = await pollFor(async () => {
                if (await item.isVisible()) {
                    return true;
                }
                if (!(await center.isVisible())) {
                    await bell.click();
                    await center.waitFor({ state: 'visible', timeout: 10_000 });
                }
                return false;
            }, { everyMs: 250 });
            if (!shown) {
                throw new Error(`no notification saying "${has}"`);
            }
            if (shot) {
                await snapshot(page, shot, shots);
            }
            if (button) {
                await item.getByRole('button', { name: button, exact: true }).click();
            }
            if (await center.isVisible().catch(() => false)) {
                await bell.click();
            }
        },
        /** Waits until the workbench shows `text` somewhere (the page or a frame). */
        async waitText(page, { text, pattern }) {
            // The editor draws spaces as non-breaking ones: compare words, not whitespace. A pattern
            // (multiline) is for what the screenshot's text is then asserted with, such as a row's
            // label and state, which the tree draws without a space between them.
            const shows = pattern ? read => new RegExp(pattern, 'm').test(read.text) : read => read.text.replace(/\s+/g, ' ').includes(text);
            if (!(await pollFor(async () => (await readAll(page)).some(shows), { timeoutMs: 2 * STATE_MS, everyMs: 250 }))) {
                throw new Error(`the workbench never showed ${pattern ? `/${pattern}/` : `"${text}"`}`);
            }
        },
        async key(page, { key }) {
            await page.keyboard.press(key);
        },
        async shot(page, { shot }, shots) {
            await snapshot(page, shot, shots);
        },
    };

    async function perform(page, request) {
        const shots = [];
        const errors = [];
        for (const action of request.actions) {
            try {
                await actions[action.do](page, action, shots);
            } catch (err) {
                errors.push(`${action.do} ${JSON.stringify(action)}: ${err.message.split('\n')[0]}`);
                log(`[walk] ${errors.at(-1)}`);
                await snapshot(page, `${request.name}-failed`, shots);
                // Leave nothing open for the next request.
                await page.keyboard.press('Escape').catch(() => undefined);
                break;
            }
        }
        const path = join(dir, `${request.name}.json`);
        writeFileSync(`${path}.partial`, JSON.stringify({ shots, errors }, null, 2));
        renameSync(`${path}.partial`, path);
    }

    /**
     * Resolves true once `file` exists (the suite renames it into place whole), false if the page closes
     * first. Woken by the folder's changes, not by polling.
     */
    function arrival(page, file) {
        return new Promise(resolve => {
            let watcher;
            const finish = arrived => {
                watcher?.close();
                page.off('close', closed);
                resolve(arrived);
            };
            const closed = () => finish(false);
            page.on('close', closed);
            watcher = watch(dir, () => {
                if (existsSync(file)) {
                    finish(true);
                }
            });
            // Watching starts now: a file that came before is already there.
            if (existsSync(file)) {
                finish(true);
            } else if (page.isClosed()) {
                finish(false);
            }
        });
    }

    /** The runner's onPage hook: performs each request as it comes, in order, until the page closes. */
    return async function onPage(page) {
        while (await arrival(page, join(dir, `request-${next}.json`))) {
            const request = JSON.parse(readFileSync(join(dir, `request-${next}.json`), 'utf8'));
            next++;
            log(`[walk] request ${request.name}: ${request.actions.map(action => action.do).join(', ')}`);
            await perform(page, request).catch(err => log(`[walk] ${request.name}: ${err.message}`));
        }
    };
}


/**
 * The approval dialog check (run.mjs --only=approval), the whole test: no suite runs in that window, since
 * VS Code answers every dialog itself in a window running extension tests. Runs the tool-caller fixture's
 * command from the Command Palette, waits for VS Code's "Run …?" dialog for confirm_delete, photographs it
 * (approval-dialog.png), writes what it says (approval-dialog.json), and cancels it. 0 when it showed as expected.
 */
export function createApprovalCheck(dir, log = line => console.log(line)) {
    return async function onPage(page) {
        mkdirSync(dir, { recursive: true });
        await page.locator('.part.statusbar').waitFor({ timeout: 60_000 });
        const widget = page.locator(QUICK_INPUT);
        const command = widget.locator('.monaco-list-row.focused', { hasText: 'Tool Caller: Call confirm_delete' });
        // The fixture's command is listed once its extension is up: open the palette again until it is.
        for (let attempt = 0; !(await command.isVisible().catch(() => false)); attempt++) {
            if (attempt === 30) {
                log('[approval] the command never showed in the Command Palette');
                return 1;
            }
            await page.keyboard.press('Escape');
            await page.keyboard.press('F1');
            await widget.locator('input').first().fill('>Tool Caller: Call confirm_delete');
            await command.waitFor({ timeout: 2000 }).catch(() => undefined);
        }
        await page.keyboard.press('Enter');
        const dialog = page.locator('.monaco-dialog-box');
        if (!(await dialog.waitFor({ timeout: 120_000 }).then(() => true, () => false))) {
            log('[approval] no dialog showed');
            return 1;
        }
        await page.screenshot({ path: join(dir, 'approval-dialog.png') });
        const read = await dialog.evaluate(box => ({
            title: box.querySelector('.dialog-message-text')?.textContent ?? '',
            detail: box.querySelector('.dialog-message-detail')?.textContent ?? '',
            buttons: [...box.querySelectorAll('.dialog-buttons .monaco-button')].map(button => button.textContent?.trim() ?? ''),
        }));
        writeFileSync(join(dir, 'approval-dialog.json'), JSON.stringify(read, null, 2));
        log(`[approval] "${read.title}" — ${read.detail} [${read.buttons.join(' | ')}]`);
        await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
        await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
        return read.title === 'Run Demo: Confirm Delete' && read.buttons.includes('Cancel') ? 0 : 1;
    };
}
