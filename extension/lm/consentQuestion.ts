// The question before a task may use a language model: a notification first, and from the task's
// row or the status bar (Respond) the same question as a pick, for as long as it is unanswered.
import * as vscode from 'vscode';
import type { Reopenable } from '../tasks/pendingInputs';

export type Consent = 'Allow' | 'Allow always' | 'Deny';
/** Deny first: a notification's first button is its primary one, which should be the safe answer. */
const CHOICES: readonly Consent[] = ['Deny', 'Allow', 'Allow always'];

/** A dismissed notification or an Escaped pick leaves it open: only a choice answers it. */
export class ConsentQuestion implements Reopenable {
    readonly answer: Promise<Consent>;
    private settle: (consent: Consent) => void = () => undefined;
    private answered = false;
    private pick?: vscode.QuickPick<vscode.QuickPickItem & { consent: Consent }>;

    constructor(
        /** The whole question, for the notification: who asks which model for what. */
        text: string,
        /** The pick's two lines of it (the whole question is too long for either). */
        private readonly pickText: { title: string; placeholder: string },
    ) {
        this.answer = new Promise(resolve => (this.settle = resolve));
        void vscode.window.showInformationMessage<Consent>(text, ...CHOICES).then(choice => choice && this.choose(choice));
    }

    /** Only a choice ends it. */
    get settled(): Promise<boolean> {
        return this.answer.then(() => true);
    }

    /** True while unanswered and not on screen as a pick (its notification may have hidden). */
    get hidden(): boolean {
        return !this.answered && !this.pick;
    }

    /** Respond: the question again, as a pick; Enter on the first row denies (the safe answer). */
    show(): void {
        if (this.answered) {
            return;
        }
        if (this.pick) {
            this.pick.show();
            return;
        }
        const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { consent: Consent }>();
        pick.title = this.pickText.title;
        pick.placeholder = this.pickText.placeholder;
        pick.items = [
            { label: vscode.l10n.t('Deny'), description: vscode.l10n.t('the task gets no reply'), consent: 'Deny' },
            { label: vscode.l10n.t('Allow'), description: vscode.l10n.t('this tool, for this window session'), consent: 'Allow' },
            { label: vscode.l10n.t('Allow always'), description: vscode.l10n.t('this tool, until you reset the permissions'), consent: 'Allow always' },
        ];
        pick.ignoreFocusOut = false;
        pick.onDidAccept(() => {
            const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
            if (chosen) {
                this.choose(chosen.consent);
            }
        });
        pick.onDidHide(() => {
            pick.dispose();
            if (this.pick === pick) {
                this.pick = undefined;
            }
        });
        this.pick = pick;
        pick.show();
    }

    private choose(consent: Consent): void {
        if (this.answered) {
            return;
        }
        this.answered = true;
        this.settle(consent);
        this.pick?.hide();
    }
}
