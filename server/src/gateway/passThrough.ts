import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import { invalidParams } from '../rpc/errors.js';
import type { Logger } from '../util/log.js';
import type { Method } from '../mcp/context.js';
import type { Downstream } from './downstream.js';
import type { DownstreamLink } from './link.js';
import { ResourceSubscriptions } from './resourceSubscriptions.js';
import { ResultSchema } from './sdkClient.js';

type Json = Record<string, unknown>;

/** One forwarded method: the request's params in, the result out (the revision's envelope is the caller's). */
export type PassThroughHandler = (params: Json | undefined, signal: AbortSignal) => Promise<Json>;

/**
 * Everything but tools, forwarded to the wrapped servers: prompts, resources (list, read,
 * templates, subscribe), completions and logging. Lists are merged over every downstream that
 * offers the feature (prompt names that collide get the server prefix, as tools do; a resource
 * URI belongs to the first server that lists it); a request about one name or URI goes to the
 * server it came from. The capabilities follow the downstreams': once each has connected, a
 * feature none offers is not declared, and its methods are not found.
 */
export class PassThrough {
    /** Method → handler; each method is one registration in the request path. */
    readonly methods: ReadonlyMap<string, PassThroughHandler>;
    /** Who wants which resource's updates, in either revision (a 2026-07-28 listener holds its URIs here). */
    readonly subscriptions: ResourceSubscriptions;
    private promptOwners = new Map<string, { downstream: Downstream; name: string }>();
    private resourceOwners = new Map<string, Downstream>();

    constructor(
        private readonly downstreams: readonly Downstream[],
        log: Logger,
        /** Resolves once the wrapped servers' first starts are over (or a while has passed): a forwarded request waits for it, as tools/list does. */
        private readonly ready: (signal: AbortSignal) => Promise<void> = () => Promise.resolve(),
    ) {
        this.subscriptions = new ResourceSubscriptions((method, params, signal) => this.forwardByUri(method, params, signal ?? NO_SIGNAL), log);
        this.methods = new Map<string, PassThroughHandler>([
            ['prompts/list', () => this.listPrompts()],
            ['prompts/get', (params, signal) => this.getPrompt(params, signal)],
            ['resources/list', () => this.listResources('resources/list', 'resources')],
            ['resources/templates/list', () => this.listResources('resources/templates/list', 'resourceTemplates')],
            ['resources/read', (params, signal) => this.forwardByUri('resources/read', params, signal)],
            ['resources/subscribe', (params, signal) => this.subscriptions.subscribe(params, signal)],
            ['resources/unsubscribe', (params, signal) => this.subscriptions.unsubscribe(params, signal)],
            ['completion/complete', (params, signal) => this.complete(params, signal)],
            ['logging/setLevel', (params, signal) => this.setLevel(params, signal)],
        ]);
    }

    /**
     * What the gateway declares beside tools and tasks: what at least one downstream declared. While
     * a downstream has never connected (its first start is under way), what it offers is unknown,
     * and a client that initializes then learns its capabilities only once: so every feature is
     * declared (a list of nothing until the server is up, then list_changed), rather than none.
     */
    capabilities(): Json {
        const declared = this.downstreams.map(downstream => downstream.capabilities ?? {});
        const unknown = this.downstreams.some(downstream => downstream.capabilities === undefined);
        const any = (key: string) => unknown || declared.some(caps => caps[key] !== undefined);
        const result: Json = {};
        if (any('prompts')) {
            result.prompts = { listChanged: true };
        }
        if (any('resources')) {
            result.resources = { listChanged: true, subscribe: unknown || declared.some(caps => (caps.resources as Json | undefined)?.subscribe === true) };
        }
        if (any('completions')) {
            result.completions = {};
        }
        if (any('logging')) {
            result.logging = {};
        }
        return result;
    }

    /**
     * The forwarded methods as entries of the one method table (services.methods): each answers in
     * the caller's revision's envelope; logging/setLevel is 2025-11-25's alone (2026-07-28 sets the
     * level per request).
     */
    table(): Map<string, Method> {
        const table = new Map<string, Method>();
        for (const name of this.methods.keys()) {
            const shape = CACHEABLE.has(name) ? 'cacheable' : 'complete';
            table.set(name, {
                handler: (ctx, params) =>
                    this.ready(ctx.abort.signal).then(() => {
                        const forward = this.handler(name);
                        return forward ? forward(params, ctx.abort.signal).then(result => ctx.revision[shape](result)) : ctx.revision.missing(name);
                    }),
                only: name === 'logging/setLevel' ? '2025-11-25' : undefined,
            });
        }
        return table;
    }

    /** The handler of `method` when its feature is declared by some downstream (else the method is not found). */
    handler(method: string): PassThroughHandler | undefined {
        const feature = method.startsWith('completion/') ? 'completions' : method.startsWith('logging/') ? 'logging' : method.split('/')[0]!;
        return this.capabilities()[feature] !== undefined ? this.methods.get(method) : undefined;
    }

    private offering(feature: string): { downstream: Downstream; client: DownstreamLink }[] {
        const live: { downstream: Downstream; client: DownstreamLink }[] = [];
        for (const downstream of this.downstreams) {
            if (downstream.capabilities?.[feature] !== undefined && downstream.state === 'up') {
                live.push({ downstream, client: downstream.connected() });
            }
        }
        return live;
    }

    private async listPrompts(): Promise<Json> {
        const lists = await Promise.all(this.offering('prompts').map(async ({ downstream, client }) => ({ downstream, prompts: await allPages<Prompt>(client, 'prompts/list', 'prompts') })));
        const count = new Map<string, number>();
        for (const { prompts } of lists) {
            for (const prompt of prompts) {
                count.set(prompt.name, (count.get(prompt.name) ?? 0) + 1);
            }
        }
        const owners = new Map<string, { downstream: Downstream; name: string }>();
        const prompts: Json[] = [];
        for (const { downstream, prompts: own } of lists) {
            for (const prompt of own) {
                const name = count.get(prompt.name)! > 1 ? `${downstream.name}_${prompt.name}` : prompt.name;
                owners.set(name, { downstream, name: prompt.name });
                prompts.push({ ...prompt, name });
            }
        }
        this.promptOwners = owners;
        return { prompts };
    }

    private async getPrompt(params: Json | undefined, signal: AbortSignal): Promise<Json> {
        const name = params?.name;
        if (typeof name !== 'string') {
            throw invalidParams('prompts/get needs a prompt name');
        }
        if (!this.promptOwners.has(name)) {
            await this.listPrompts();
        }
        const owner = this.promptOwners.get(name);
        if (!owner) {
            throw invalidParams(`Unknown prompt: ${name}`);
        }
        return owner.downstream.connected().request({ method: 'prompts/get', params: { ...params, name: owner.name } }, anyResult, { signal }) as Promise<Json>;
    }

    private async listResources(method: 'resources/list' | 'resources/templates/list', key: 'resources' | 'resourceTemplates'): Promise<Json> {
        const lists = await Promise.all(this.offering('resources').map(async ({ downstream, client }) => ({ downstream, items: await allPages<Json>(client, method, key) })));
        const items: Json[] = [];
        const seen = new Set<string>();
        for (const { downstream, items: own } of lists) {
            for (const item of own) {
                const uri = (item.uri ?? item.uriTemplate) as string;
                if (!seen.has(uri)) {
                    seen.add(uri);
                    items.push(item);
                    if (key === 'resources') {
                        this.resourceOwners.set(uri, downstream);
                    }
                }
            }
        }
        return { [key]: items };
    }

    /** To the server that listed the URI; an unlisted one (a template's) goes to each resource server in turn until one knows it. */
    private async forwardByUri(method: string, params: Json | undefined, signal: AbortSignal): Promise<Json> {
        const uri = params?.uri;
        if (typeof uri !== 'string') {
            throw invalidParams(`${method} needs a uri`);
        }
        const owner = this.resourceOwners.get(uri);
        return firstAnswer(owner ? [owner] : this.offering('resources').map(live => live.downstream), method, params, signal, `Unknown resource: ${uri}`);
    }

    private async complete(params: Json | undefined, signal: AbortSignal): Promise<Json> {
        const ref = params?.ref as Json | undefined;
        if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
            if (!this.promptOwners.has(ref.name)) {
                await this.listPrompts();
            }
            const owner = this.promptOwners.get(ref.name);
            if (!owner) {
                throw invalidParams(`Unknown prompt: ${ref.name}`);
            }
            return (await owner.downstream.connected().request({ method: 'completion/complete', params: { ...params, ref: { ...ref, name: owner.name } } }, anyResult, { signal })) as Json;
        }
        // A resource template's arguments: whichever server knows the template answers.
        return firstAnswer(
            this.offering('completions').map(live => live.downstream),
            'completion/complete',
            params,
            signal,
            'No wrapped server offers completions for this reference',
        ).catch(() => ({ completion: { values: [] } }));
    }

    private async setLevel(params: Json | undefined, signal: AbortSignal): Promise<Json> {
        await Promise.all(this.offering('logging').map(({ client }) => client.request({ method: 'logging/setLevel', params: params ?? {} }, anyResult, { signal })));
        return {};
    }
}

/** Results forwarded as they come (any result object): the host validates what it reads. */
const anyResult = ResultSchema;
/** The results a 2026-07-28 client may cache, which say for how long (SEP-2549). */
const CACHEABLE = new Set(['prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** For a request no client waits on (an unsubscribe once the last listener left). */
const NO_SIGNAL = new AbortController().signal;

/** The first of `candidates` that answers without an error; the last error if none does. */
async function firstAnswer(candidates: readonly Downstream[], method: string, params: Json | undefined, signal: AbortSignal, none: string): Promise<Json> {
    let lastError: unknown = invalidParams(none);
    for (const downstream of candidates) {
        try {
            return (await downstream.connected().request({ method, params: params ?? {} }, anyResult, { signal })) as Json;
        } catch (err) {
            lastError = err;
        }
    }
    throw lastError;
}

async function allPages<T>(client: DownstreamLink, method: string, key: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
        const page = (await client.request({ method, params: cursor ? { cursor } : {} }, anyResult)) as Json;
        items.push(...((page[key] as T[] | undefined) ?? []));
        cursor = page.nextCursor as string | undefined;
    } while (cursor);
    return items;
}
