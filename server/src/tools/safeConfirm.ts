// A yes/no question whose safe answer is the one Enter picks. A boolean would not do:
// VS Code's own form (1.139 too) drops `default: false` and opens on `true`, so Enter would
// consent. As a titled single-choice string, the safe choice comes first and is the default, so
// every client opens on it; only the explicit unsafe value counts as consent (and, where a question
// says so, `true`: see yesMeansUnsafe).
import type { ElicitRequestFormParams, ElicitResult } from '../mcpTypes.js';

export interface SafeConfirm {
    /** The one property of the form. */
    key: string;
    /** The field's title and description, as the user reads them above the choices. */
    title: string;
    description: string;
    /** The answer that changes nothing; listed first and the default. */
    safe: { value: string; title: string };
    /** The only answer that is consent. */
    unsafe: { value: string; title: string };
    /**
     * `true` is consent too: for a question clients were once asked as a boolean (confirm_delete:
     * the seed's server asked `{confirm: boolean}`, and its conformance suite answers `{confirm:
     * true}`). No client that renders this form can send it.
     */
    yesMeansUnsafe?: boolean;
}

/** The form's requestedSchema: one required string choice, safe first and default. */
export function safeConfirmSchema(question: SafeConfirm): ElicitRequestFormParams['requestedSchema'] {
    return {
        type: 'object',
        properties: {
            [question.key]: {
                type: 'string',
                title: question.title,
                description: question.description,
                oneOf: [
                    { const: question.safe.value, title: question.safe.title },
                    { const: question.unsafe.value, title: question.unsafe.title },
                ],
                default: question.safe.value,
            },
        },
        required: [question.key],
    };
}

/**
 * True only for an accepted answer that names the unsafe value (or `true`, for a question with
 * yesMeansUnsafe); decline, cancel, the safe value, `false` or anything else is not consent.
 */
export function isConsent(question: SafeConfirm, answer: ElicitResult): boolean {
    const value = answer.content?.[question.key];
    return answer.action === 'accept' && (value === question.unsafe.value || (value === true && question.yesMeansUnsafe === true));
}

/** True for an accepted answer that names the safe value: the user chose to change nothing (not a decline). */
export function choseSafe(question: SafeConfirm, answer: ElicitResult): boolean {
    return answer.action === 'accept' && answer.content?.[question.key] === question.safe.value;
}
