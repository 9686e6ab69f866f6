// Answers MCP `sampling/createMessage` with a VS Code language model, after the user agrees.
// Failures become RpcErrors with a readable message, so the task that asked fails with it.
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { showNoLanguageModel } from '../errorNotice';
import { NO_LANGUAGE_MODEL } from '../errorText';
import { untilAborted } from '../input/untilAborted';
import { RpcError, RpcErrorCodes } from '../client/rpcError';
import { chooseModel } from './modelChoice';
import { plainMessages, StopScanner, TokenBudget, UnsupportedSamplingInput } from './samplingText';

/** Memento key: client names the user chose "Allow always" for. */
const ALWAYS_ALLOWED_KEY = 'mcpTasks.sampling.alwaysAllowedClients';

export interface SamplingContext {
    clientName: string;
    signal: AbortSignal;
}

export interface SamplingLog {
    info(message: string): void;
    warn(message: string): void;
}

type Consent = 'Allow' | 'Allow always' | 'Deny';

export class SamplingResponder {
    /** "Allow" lasts as long as this responder (the window session). */
    private readonly allowedThisSession = new Set<string>();
    /** One question per client at a time: concurrent requests wait for the same answer. */
    private readonly askingConsent = new Map<string, Promise<boolean>>();

    constructor(
        private readonly memento: vscode.Memento,
        private readonly log: SamplingLog,
        private readonly preferredModel: () => string | undefined,
    ) {}

    async createMessage(params: CreateMessageRequest['params'], { clientName, signal }: SamplingContext): Promise<CreateMessageResult> {
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
        const allowed = await untilAborted(this.consent(clientName, model.name), signal);
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

    private consent(clientName: string, modelName: string): Promise<boolean> {
        if (this.allowedThisSession.has(clientName) || this.alwaysAllowed().includes(clientName)) {
            return Promise.resolve(true);
        }
        let asking = this.askingConsent.get(clientName);
        if (!asking) {
            asking = this.askConsent(clientName, modelName).finally(() => this.askingConsent.delete(clientName));
            this.askingConsent.set(clientName, asking);
        }
        return asking;
    }

    private async askConsent(clientName: string, modelName: string): Promise<boolean> {
        const choice = await vscode.window.showInformationMessage<Consent>(`Allow ${clientName} to use ${modelName} via MCP Tasks?`, 'Allow', 'Allow always', 'Deny');
        if (choice === 'Allow always') {
            await this.memento.update(ALWAYS_ALLOWED_KEY, [...this.alwaysAllowed(), clientName]);
        }
        if (choice === 'Allow' || choice === 'Allow always') {
            this.allowedThisSession.add(clientName);
            this.log.info(`Sampling allowed for ${clientName}${choice === 'Allow always' ? ' (always)' : ''}`);
            return true;
        }
        // Deny and a dismissed notification both refuse this request; the next one asks again.
        this.log.info(`Sampling ${choice === 'Deny' ? 'denied' : 'not allowed (dismissed)'} for ${clientName}`);
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
