// Walks a prompt plan with VS Code quick inputs, one step at a time.
// VS Code shows one quick input at a time and opening another hides the current one, so
// prompts wait their turn in a queue instead of cancelling each other. A prompt that can be
// reopened (a task's, through Respond) is not answered when it is hidden by Escape or by
// another quick input (Quick Open): it waits, answers kept, until show() brings it back.
import * as vscode from 'vscode';
import { coerceStep, defaultRaw, validateContent, validateStep, type MultiEnumStep, type PromptStep, type StepValue } from './schemaPlan';
import { choiceLabel, fieldPrompt, inputPlaceholder, oneLine, singleChoices, stepTitle } from './stepText';

export type PromptOutcome = { action: 'accept'; content: Record<string, StepValue> } | { action: 'decline' } | { action: 'cancel' };

export interface PromptOptions {
    /** The server's message, or the tool's title; each step of a longer form adds "(step i of n)". */
    heading: string;
    /** Elicitation offers an explicit Decline; Run Tool does not. */
    allowDecline: boolean;
    /** Aborting closes the open prompt and settles as 'cancel'. */
    signal?: AbortSignal;
    /**
     * Hiding (Escape, Quick Open) leaves the prompt waiting for show() instead of settling as
     * 'cancel'. Only for prompts something can bring back; the others would wait unseen.
     */
    waitWhenHidden?: boolean;
}

type StepAnswer =
    | { kind: 'value'; raw: string | string[]; value: StepValue | undefined }
    | { kind: 'back' }
    | { kind: 'decline' }
    | { kind: 'cancel' }
    /** Another prompt was brought forward: this one waits, then asks the same step again. */
    | { kind: 'aside' }
    /** Closed by Escape or another quick input; `draft` is what the user had typed. */
    | { kind: 'hidden'; draft?: string };

interface PickItem extends vscode.QuickPickItem {
    value?: string;
    action?: 'skip' | 'decline' | 'accept';
}

// Made when shown rather than at load, so their words are in the display language.
const declineButton = (): vscode.QuickInputButton => ({ iconPath: new vscode.ThemeIcon('circle-slash'), tooltip: vscode.l10n.t('Decline') });
const skipItem = (): PickItem => ({ label: vscode.l10n.t('Skip'), description: vscode.l10n.t('Leave this field out'), action: 'skip' });
// "No" is an answer to the question; Decline refuses the whole request. Both say so.
const declineItem = (): PickItem => ({ label: vscode.l10n.t('Decline'), description: vscode.l10n.t('Answer nothing: the server is told you refused the request'), action: 'decline' });
const SEPARATOR: PickItem = { label: '', kind: vscode.QuickPickItemKind.Separator };

/** Prompts take turns on screen, first come first asked, unless one is brought forward. */
class Turns {
    private holder: PendingPrompt | undefined;
    private readonly waiting: { prompt: PendingPrompt; go: () => void }[] = [];

    /** Resolves when `prompt` may show; `first` puts it ahead of every waiting prompt. */
    take(prompt: PendingPrompt, first = false): Promise<void> {
        if (!this.holder) {
            this.holder = prompt;
            return Promise.resolve();
        }
        return new Promise(go => (first ? this.waiting.unshift({ prompt, go }) : this.waiting.push({ prompt, go })));
    }

    release(prompt: PendingPrompt): void {
        if (this.holder !== prompt) {
            return;
        }
        const next = this.waiting.shift();
        this.holder = next?.prompt;
        next?.go();
    }

    /** The prompt that has the screen, if any. */
    get onScreen(): PendingPrompt | undefined {
        return this.holder;
    }

    isWaiting(prompt: PendingPrompt): boolean {
        return this.waiting.some(entry => entry.prompt === prompt);
    }

    /** Makes a waiting prompt the next one and asks the prompt on screen to step aside for it. */
    /** Puts `prompt` first in line, asking the prompt on screen to step aside; resolves when it may show. */
    claim(prompt: PendingPrompt, stepAside: (holder: PendingPrompt) => void): Promise<void> {
        const turn = this.take(prompt, true);
        if (this.holder && this.holder !== prompt) {
            stepAside(this.holder);
        }
        return turn;
    }

    bringForward(prompt: PendingPrompt, stepAside: (holder: PendingPrompt) => void): void {
        const index = this.waiting.findIndex(entry => entry.prompt === prompt);
        if (index < 0) {
            return;
        }
        this.waiting.unshift(...this.waiting.splice(index, 1));
        if (this.holder) {
            stepAside(this.holder);
        }
    }
}

const turns = new Turns();

/** One form being asked. `result` settles once: accepted content, a decline, or a cancel. */
export class PendingPrompt implements vscode.Disposable {
    readonly result: Promise<PromptOutcome>;
    private readonly heading: { text: string; truncated: boolean };
    private readonly fullHeading: string;
    private current: vscode.QuickInput | undefined;
    private finishCurrent: ((answer: StepAnswer) => void) | undefined;
    private cancelled = false;
    /** Set when another prompt was brought forward; the open (or next) step then steps aside. */
    private asideRequested = false;
    private settleEarly: ((outcome: PromptOutcome) => void) | undefined;
    /** Set while the prompt was hidden and waits to be shown again; calling it wakes it. */
    private wake: (() => void) | undefined;
    private readonly onAbort = () => this.dispose();

    constructor(
        private readonly steps: readonly PromptStep[],
        private readonly options: PromptOptions,
    ) {
        this.fullHeading = options.heading;
        this.heading = oneLine(options.heading);
        options.signal?.addEventListener('abort', this.onAbort, { once: true });
        if (options.signal?.aborted) {
            this.cancelled = true;
        }
        // A queued prompt that is cancelled settles at once rather than after the ones before it.
        const turn = turns.take(this).then(() => this.run());
        this.result = new Promise<PromptOutcome>((resolve, reject) => {
            this.settleEarly = resolve;
            turn.then(resolve, reject);
        }).finally(() => options.signal?.removeEventListener('abort', this.onAbort));
    }

    get settled(): Promise<boolean> {
        return this.result.then(outcome => outcome.action !== 'cancel', () => false);
    }

    /**
     * Brings this prompt to the user: re-shows its open step, or, while it waits behind another
     * prompt, shows it now (the other one steps aside and comes back afterwards, answers kept).
     */
    show(): void {
        if (this.wake) {
            this.wake();
        } else if (this.current) {
            this.current.show();
        } else if (turns.isWaiting(this)) {
            turns.bringForward(this, holder => holder.stepAside());
        }
    }

    /** Whether a question is on screen: moving the focus now would take the keyboard from it. */
    static get asking(): boolean {
        return Boolean(turns.onScreen?.current);
    }

    /**
     * Gives the keyboard back to the question on screen, if one is: something moved the focus after it
     * opened (Run Tool focuses the Tasks view once its task starts, and a tool that asks at once asks
     * before that), and Enter must answer the question, never act on the view's selected row.
     */
    static async focusOnScreen(): Promise<void> {
        if (turns.onScreen?.current) {
            await vscode.commands.executeCommand('workbench.action.focusQuickOpen');
        }
    }

    /** Cancels: closes the open step, or skips this prompt if it is still queued. */
    dispose(): void {
        this.cancelled = true;
        this.settleEarly?.({ action: 'cancel' });
        this.finishCurrent?.({ kind: 'cancel' });
        this.wake?.();
    }

    /** True while the prompt was hidden and waits for show() (Respond) to come back. */
    get hidden(): boolean {
        return this.wake !== undefined;
    }

    private stepAside(): void {
        this.asideRequested = true;
        this.finishCurrent?.({ kind: 'aside' });
    }

    /** Gives the screen to the prompt brought forward and waits to be next again. */
    private async waitTurnAgain(): Promise<void> {
        this.asideRequested = false;
        turns.release(this);
        await turns.take(this, true);
    }

    /**
     * After a hide: gives the screen up, waits for show() or dispose(), then takes the screen
     * back ahead of any queued prompt. False means the prompt was cancelled meanwhile.
     */
    private async waitUntilShown(): Promise<boolean> {
        turns.release(this);
        if (this.cancelled) {
            return false;
        }
        await new Promise<void>(resolve => (this.wake = resolve));
        this.wake = undefined;
        if (this.cancelled) {
            return false;
        }
        await turns.claim(this, holder => holder.stepAside());
        return !this.cancelled;
    }

    /** What a hidden step means: wait to be shown again (true), or the prompt is cancelled (false). */
    private async resumeAfterHide(): Promise<boolean> {
        return this.options.waitWhenHidden === true && (await this.waitUntilShown());
    }

    private async run(): Promise<PromptOutcome> {
        try {
            if (this.cancelled) {
                return { action: 'cancel' };
            }
            return await this.walk();
        } finally {
            turns.release(this);
        }
    }

    private async walk(): Promise<PromptOutcome> {
        if (this.steps.length === 0) {
            return this.options.allowDecline ? this.confirm() : { action: 'accept', content: {} };
        }
        const answers = new Map<string, { raw: string | string[]; value: StepValue | undefined }>();
        const drafts = new Map<string, string>();
        let i = 0;
        while (i < this.steps.length) {
            const step = this.steps[i]!;
            const answer = await this.ask(step, i, drafts.get(step.key) ?? answers.get(step.key)?.raw);
            drafts.delete(step.key);
            if (answer.kind === 'hidden') {
                if (answer.draft !== undefined) {
                    drafts.set(step.key, answer.draft);
                }
                if (await this.resumeAfterHide()) {
                    continue;
                }
                return { action: 'cancel' };
            }
            if (this.cancelled || answer.kind === 'cancel') {
                return { action: 'cancel' };
            }
            if (answer.kind === 'decline') {
                return { action: 'decline' };
            }
            if (answer.kind === 'back') {
                i = Math.max(0, i - 1);
                continue;
            }
            if (answer.kind === 'aside') {
                await this.waitTurnAgain();
                continue;
            }
            answers.set(step.key, { raw: answer.raw, value: answer.value });
            i++;
        }
        const content: Record<string, StepValue> = Object.fromEntries(
            [...answers].flatMap(([key, a]) => (a.value === undefined ? [] : [[key, a.value] as const])),
        );
        const error = validateContent(this.steps, content);
        if (error !== undefined) {
            // Each step was validated as it was answered, so this is a bug, not a user mistake.
            throw new Error(vscode.l10n.t('The answers do not fit the schema: {0}', error));
        }
        return { action: 'accept', content };
    }

    private ask(step: PromptStep, i: number, previous: string | string[] | undefined): Promise<StepAnswer> {
        const title = stepTitle(this.heading.text, i + 1, this.steps.length);
        switch (step.kind) {
            case 'boolean':
            case 'enum':
                return this.pickOne(step, title, i > 0, previous);
            case 'multiEnum':
                return this.pickMany(step, title, i > 0, previous);
            default:
                return this.inputText(step, title, i > 0, previous);
        }
    }

    /** A form with no fields: the message alone, to accept or decline. */
    private async confirm(): Promise<PromptOutcome> {
        let answer: StepAnswer;
        while ((answer = await this.askConfirm()).kind === 'aside' || answer.kind === 'hidden') {
            if (answer.kind === 'aside') {
                await this.waitTurnAgain();
            } else if (!(await this.resumeAfterHide())) {
                return { action: 'cancel' };
            }
        }
        return answer.kind === 'value' ? { action: 'accept', content: {} } : answer.kind === 'decline' ? { action: 'decline' } : { action: 'cancel' };
    }

    private askConfirm(): Promise<StepAnswer> {
        const picker = vscode.window.createQuickPick<PickItem>();
        picker.title = this.heading.text;
        picker.placeholder = this.heading.truncated ? this.fullHeading : vscode.l10n.t('Accept or decline this request');
        picker.items = [{ label: vscode.l10n.t('Accept'), action: 'accept' }, declineItem()];
        return this.present(picker, () => undefined, finish => [
            picker.onDidAccept(() => {
                const item = picker.selectedItems[0];
                if (item) {
                    finish(item.action === 'accept' ? { kind: 'value', raw: '', value: undefined } : { kind: 'decline' });
                }
            }),
        ]);
    }

    private inputText(step: PromptStep, title: string, canGoBack: boolean, previous: string | string[] | undefined): Promise<StepAnswer> {
        const box = vscode.window.createInputBox();
        box.title = title;
        box.prompt = this.withFullHeading(fieldPrompt(step));
        box.placeholder = inputPlaceholder(step);
        box.value = typeof previous === 'string' ? previous : defaultRaw(step);
        box.buttons = this.buttons(canGoBack);
        if (box.value !== '') {
            box.validationMessage = validateStep(step, box.value);
        }
        return this.present(box, () => box.value, finish => [
            box.onDidChangeValue(value => {
                box.validationMessage = validateStep(step, value);
            }),
            box.onDidAccept(() => {
                const error = validateStep(step, box.value);
                if (error !== undefined) {
                    box.validationMessage = error;
                    return;
                }
                finish({ kind: 'value', raw: box.value, value: coerceStep(step, box.value) });
            }),
            box.onDidTriggerButton(button => finish(this.buttonAnswer(button))),
        ]);
    }

    private pickOne(step: PromptStep & { kind: 'boolean' | 'enum' }, title: string, canGoBack: boolean, previous: string | string[] | undefined): Promise<StepAnswer> {
        const picker = vscode.window.createQuickPick<PickItem>();
        picker.title = title;
        picker.placeholder = this.withFullHeading(fieldPrompt(step));
        picker.matchOnDescription = true;
        const choices: PickItem[] =
            step.kind === 'boolean'
                ? [
                      { label: vscode.l10n.t('Yes'), value: 'true', description: vscode.l10n.t('Send the answer Yes') },
                      { label: vscode.l10n.t('No'), value: 'false', description: vscode.l10n.t('Send the answer No') },
                  ]
                : singleChoices(step.options, step.required).choices;
        const skip = step.kind === 'boolean' ? !step.required : singleChoices(step.options, step.required).skip;
        const extras = [...(skip ? [skipItem()] : []), ...(this.options.allowDecline ? [declineItem()] : [])];
        picker.items = extras.length ? [...choices, SEPARATOR, ...extras] : choices;
        const preselect = typeof previous === 'string' ? previous : defaultRaw(step);
        const active = choices.find(c => c.value === preselect);
        if (active) {
            picker.activeItems = [active];
        }
        picker.buttons = canGoBack ? [vscode.QuickInputButtons.Back] : [];
        return this.present(picker, () => undefined, finish => [
            picker.onDidAccept(() => {
                const item = picker.selectedItems[0] ?? picker.activeItems[0];
                if (!item) {
                    return;
                }
                if (item.action === 'decline') {
                    finish({ kind: 'decline' });
                } else if (item.action === 'skip') {
                    finish({ kind: 'value', raw: '', value: undefined });
                } else if (item.value !== undefined) {
                    finish({ kind: 'value', raw: item.value, value: coerceStep(step, item.value) });
                }
            }),
            picker.onDidTriggerButton(button => finish(this.buttonAnswer(button))),
        ]);
    }

    private pickMany(step: MultiEnumStep, title: string, canGoBack: boolean, previous: string | string[] | undefined): Promise<StepAnswer> {
        const picker = vscode.window.createQuickPick<PickItem>();
        const placeholder = this.withFullHeading(step.required ? fieldPrompt(step) : vscode.l10n.t({ message: '{0} (pick none to skip)', args: [fieldPrompt(step)], comment: ['{0} names a multiple-choice field'] }));
        picker.title = title;
        picker.placeholder = placeholder;
        picker.canSelectMany = true;
        picker.matchOnDescription = true;
        const choices: PickItem[] = step.options.map(o => ({ label: choiceLabel(o.label), value: o.value }));
        picker.items = choices;
        const chosen = Array.isArray(previous) ? previous : (step.default ?? []);
        picker.selectedItems = choices.filter(c => c.value !== undefined && chosen.includes(c.value));
        // Decline is a button here: an item would be one more checkbox.
        picker.buttons = this.buttons(canGoBack);
        return this.present(picker, () => undefined, finish => [
            picker.onDidAccept(() => {
                const values = picker.selectedItems.flatMap(item => (item.value === undefined ? [] : [item.value]));
                const error = validateStep(step, values);
                if (error !== undefined) {
                    // A quick pick has no validation message; the placeholder is where the eye is.
                    picker.placeholder = `${error} — ${placeholder}`;
                    return;
                }
                finish({ kind: 'value', raw: values, value: coerceStep(step, values) });
            }),
            picker.onDidChangeSelection(() => {
                picker.placeholder = placeholder;
            }),
            picker.onDidTriggerButton(button => finish(this.buttonAnswer(button))),
        ]);
    }

    private buttons(canGoBack: boolean): vscode.QuickInputButton[] {
        return [...(canGoBack ? [vscode.QuickInputButtons.Back] : []), ...(this.options.allowDecline ? [declineButton()] : [])];
    }

    private buttonAnswer(button: vscode.QuickInputButton): StepAnswer {
        return button === vscode.QuickInputButtons.Back ? { kind: 'back' } : { kind: 'decline' };
    }

    /** When the heading had to be shortened for the title, the full text goes with the first line of the field. */
    private withFullHeading(text: string): string {
        return this.heading.truncated ? `${this.fullHeading} — ${text}` : text;
    }

    /**
     * Shows one quick input until `finish` is called: by the step's own handlers, by a hide
     * (Escape, or another quick input taking the screen) as 'hidden' with `draft()`, or by dispose().
     */
    private present(input: vscode.QuickInput, draft: () => string | undefined, wire: (finish: (answer: StepAnswer) => void) => vscode.Disposable[]): Promise<StepAnswer> {
        return new Promise<StepAnswer>(resolve => {
            const subscriptions: vscode.Disposable[] = [];
            let done = false;
            const finish = (answer: StepAnswer) => {
                if (done) {
                    return;
                }
                done = true;
                this.current = undefined;
                this.finishCurrent = undefined;
                subscriptions.forEach(s => s.dispose());
                input.dispose();
                resolve(answer);
            };
            if (this.cancelled || this.asideRequested) {
                input.dispose();
                resolve({ kind: this.cancelled ? 'cancel' : 'aside' });
                return;
            }
            try {
                subscriptions.push(...wire(finish), input.onDidHide(() => finish({ kind: 'hidden', draft: draft() })));
            } catch (err) {
                subscriptions.forEach(s => s.dispose());
                input.dispose();
                throw err;
            }
            input.ignoreFocusOut = true;
            this.current = input;
            this.finishCurrent = finish;
            input.show();
        });
    }
}
