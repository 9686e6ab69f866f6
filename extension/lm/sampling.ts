// Answers MCP `sampling/createMessage` with a VS Code language model, after the user agrees.
// Failures become RpcErrors with a readable message, so the task that asked fails with it.
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { showNoLanguageModel } from '../errorNotice';
import { NO_LANGUAGE_MODEL } from '../errorText';
import { untilAborted } from '../input/untilAborted';
import { RpcError, RpcErrorCodes } from '../client/rpcError';
import type { Reopenable } from '../tasks/pendingInputs';
import { ConsentQuestion } from './consentQuestion';
import { chooseModel } from './modelChoice';
import { plainMessages, requestExcerpt, StopScanner, TokenBudget, UnsupportedSamplingInput } from './samplingText';

/** Memento key: the consent scopes (see consentScope) the user chose "Allow always" for. */
const ALWAYS_ALLOWED_KEY = 'mcpTasks.sampling.alwaysAllowedClients';

export interface SamplingContext {
    clientName: string;
    signal: AbortSignal;
    /** Who asks, as the user knows it (the task's label); the client's name when none. */
    asker?: string;
    /**
     * The tool whose task asks (a wrapped server's tool is named for its server). "Allow" and "Allow
     * always" cover this tool of this client, as the question says: not every tool the client reaches.
     */
    tool?: string;
    /** The consent question is open for this request: Respond on its task brings it back. */
    onQuestion?: (question: Reopenable) => { dispose(): void };
}

/** What one consent answer covers: a tool of a client when the request names its task's tool, else the client. */
export function consentScope(clientName: string, tool: string | undefined): string {
    return tool ? `${clientName} · ${tool}` : clientName;
}

export interface SamplingLog {
    info(message: string): void;
    warn(message: string): void;
}

export class SamplingResponder {
    /** "Allow" lasts as long as this responder (the window session). */
    private readonly allowedThisSession = new Set<string>();
    /** One question per client at a time: concurrent requests wait for the same answer. */
    private readonly askingConsent = new Map<string, { question: ConsentQuestion; allowed: Promise<boolean> }>();

    constructor(
        private readonly memento: vscode.Memento,
        private readonly log: SamplingLog,
        private readonly preferredModel: () => string | undefined,
    ) {}

    async createMessage(params: CreateMessageRequest['params'], { clientName, signal, asker, tool, onQuestion }: SamplingContext): Promise<CreateMessageResult> {
        let messages: vscode.LanguageModelChatMessage[];
        try {
            messages = plainMessages(params).map(m => (m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.text) : vscode.LanguageModelChatMessage.Assistant(m.text)));
        } catch (err) {
            if (err instanceof UnsupportedSamplingInput) {
                throw new RpcError(RpcErrorCodes.InvalidParams, err.message);
            }
            throw err;
        }
        if (params.tools?.length) {
            this.log.warn(`${clientName} sent tools with a sampling request; they are ignored.`);
        }
        const models = await vscode.lm.selectChatModels();
        const model = chooseModel(models, params.modelPreferences?.hints, this.preferredModel());
        if (!model) {
            void showNoLanguageModel(clientName);
            throw new RpcError(RpcErrorCodes.InternalError, NO_LANGUAGE_MODEL);
        }
        const who = asker ?? clientName;
        const excerpt = requestExcerpt(params);
        const question = {
            text: vscode.l10n.t({
                message: '{0} asks {1} for a reply to: “{2}”. Allow it?',
                args: [who, model.name, excerpt],
                comment: ['{0} is the task (or client) asking, {1} a language model, {2} the start of what it asks'],
            }),
            title: vscode.l10n.t({ message: '{0} asks {1} for a reply', args: [who, model.name], comment: ['{0} is the task (or client) asking, {1} a language model'] }),
            placeholder: vscode.l10n.t({ message: '“{0}” — allow it?', args: [excerpt], comment: ['{0} is the start of what a task asks a language model'] }),
        };
        const allowed = await untilAborted(this.consent(consentScope(clientName, tool), question, onQuestion), signal);
        throwIfAborted(signal);
        if (!allowed) {
            throw new RpcError(RpcErrorCodes.UserRejected, `The user denied sampling for ${clientName}`);
        }
        this.log.info(`${clientName} samples ${model.id} (${messages.length} messages, maxTokens ${params.maxTokens})`);
        return this.sample(model, messages, params, clientName, signal);
    }

    /** Forgets every "Allow" and "Allow always". */
    async resetConsent(): Promise<void> {
        this.allowedThisSession.clear();
        await this.memento.update(ALWAYS_ALLOWED_KEY, undefined);
    }

    private consent(scope: string, question: { text: string; title: string; placeholder: string }, onQuestion: SamplingContext['onQuestion']): Promise<boolean> {
        if (this.allowedThisSession.has(scope) || this.alwaysAllowed().includes(scope)) {
            return Promise.resolve(true);
        }
        let asking = this.askingConsent.get(scope);
        if (!asking) {
            const asked = new ConsentQuestion(question.text, question);
            asking = { question: asked, allowed: this.settleConsent(scope, asked).finally(() => this.askingConsent.delete(scope)) };
            this.askingConsent.set(scope, asking);
        }
        const registration = onQuestion?.(asking.question);
        return asking.allowed.finally(() => registration?.dispose());
    }

    private async settleConsent(scope: string, question: ConsentQuestion): Promise<boolean> {
        const choice = await question.answer;
        if (choice === 'Allow always') {
            await this.memento.update(ALWAYS_ALLOWED_KEY, [...this.alwaysAllowed(), scope]);
        }
        if (choice === 'Allow' || choice === 'Allow always') {
            this.allowedThisSession.add(scope);
            this.log.info(`Sampling allowed for ${scope}${choice === 'Allow always' ? ' (always)' : ''}`);
            return true;
        }
        // Only Deny refuses: a dismissed notification leaves the question open (Respond brings it back).
        this.log.info(`Sampling denied for ${scope}`);
        return false;
    }

    private alwaysAllowed(): string[] {
        const value = this.memento.get<unknown>(ALWAYS_ALLOWED_KEY);
        return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    }

    private async sample(
        model: vscode.LanguageModelChat,
        messages: vscode.LanguageModelChatMessage[],
        params: CreateMessageRequest['params'],
        clientName: string,
        signal: AbortSignal,
    ): Promise<CreateMessageResult> {
        const source = new vscode.CancellationTokenSource();
        const onAbort = () => source.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
            // Provider-specific and best effort: there is no standard option for either.
            const modelOptions: Record<string, unknown> = { max_tokens: params.maxTokens };
            if (params.temperature !== undefined) {
                modelOptions.temperature = params.temperature;
            }
            const response = await model.sendRequest(messages, { justification: `${clientName} asked for a reply through MCP sampling.`, modelOptions }, source.token);
            const scanner = new StopScanner(params.stopSequences);
            const budget = new TokenBudget(params.maxTokens);
            let countTokens = true;
            let stopReason: 'endTurn' | 'stopSequence' | 'maxTokens' = 'endTurn';
            for await (const chunk of response.text) {
                if (scanner.push(chunk)) {
                    stopReason = 'stopSequence';
                    break;
                }
                if (countTokens && budget.due(scanner.text.length)) {
                    try {
                        if (budget.reached(scanner.text.length, await model.countTokens(scanner.text, source.token))) {
                            stopReason = 'maxTokens';
                            break;
                        }
                    } catch (err) {
                        throwIfAborted(signal);
                        countTokens = false;
                        this.log.warn(`Cannot count tokens with ${model.id}, so maxTokens is left to the model: ${errorText(err)}`);
                    }
                }
            }
            throwIfAborted(signal);
            return { role: 'assistant', content: { type: 'text', text: scanner.text }, model: model.id, stopReason };
        } catch (err) {
            throw toRpcError(err, signal);
        } finally {
            // Stops the model when we broke out early; harmless after a full reply.
            source.cancel();
            source.dispose();
            signal.removeEventListener('abort', onAbort);
        }
    }
}

function throwIfAborted(signal: AbortSignal): void {
    if (signal.aborted) {
        throw new RpcError(RpcErrorCodes.InternalError, 'Sampling was cancelled');
    }
}

function toRpcError(err: unknown, signal: AbortSignal): RpcError {
    if (err instanceof RpcError) {
        return err;
    }
    if (signal.aborted) {
        return new RpcError(RpcErrorCodes.InternalError, 'Sampling was cancelled');
    }
    if (err instanceof vscode.LanguageModelError) {
        return new RpcError(RpcErrorCodes.InternalError, `Language model error (${err.code}): ${err.message}`);
    }
    return new RpcError(RpcErrorCodes.InternalError, `Sampling failed: ${errorText(err)}`);
}

function errorText(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}
