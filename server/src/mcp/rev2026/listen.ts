import { errorMessage } from '../../util/log.js';
import { invalidParams } from '../../rpc/errors.js';
import { optionalObject } from '../../rpc/params.js';
import type { ClientIdentity, ClientLink } from '../../tasks/hub.js';
import { TASK_STATUS_METHOD } from '../../tasks/notifier.js';
import { requireTasksExtension } from './envelope.js';
import { capabilitiesOf } from '../capabilities.js';
import { LIST_WAIT_MS, type Params, type RequestContext } from '../context.js';
import { detailedTask } from './taskView.js';

export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';
/** Task ids one listen may follow. */
const MAX_TASK_IDS = 1000;
/** Resource URIs one listen may follow. */
const MAX_RESOURCE_URIS = 1000;

/** Each list-change notification, the filter key that opts in to it, and the capability that must be declared for it. */
const LIST_CHANGES = new Map([
    ['notifications/tools/list_changed', { key: 'toolsListChanged', feature: 'tools' }],
    ['notifications/prompts/list_changed', { key: 'promptsListChanged', feature: 'prompts' }],
    ['notifications/resources/list_changed', { key: 'resourcesListChanged', feature: 'resources' }],
]);

/** The resource URIs a listen names (checked before anything is held). */
function resourceUris(wanted: unknown): string[] | undefined {
    if (wanted === undefined) {
        return undefined;
    }
    if (!Array.isArray(wanted) || wanted.some(uri => typeof uri !== 'string') || wanted.length > MAX_RESOURCE_URIS) {
        throw invalidParams(`notifications.resourceSubscriptions must be an array of at most ${MAX_RESOURCE_URIS} resource URI strings`);
    }
    return [...new Set(wanted as string[])];
}

/** Those of `wanted` that some server takes, each held until the stream ends (`unfollow`). */
async function holdResources(call: RequestContext, wanted: string[], unfollow: (() => void)[]): Promise<Set<string>> {
    const uris = new Set<string>();
    const subscriber = call.services.resourceSubscriptions;
    // A URI no server takes is left out of the acknowledgement, not an error (as unknown task ids are).
    for (const uri of wanted) {
        const release = await subscriber?.hold(uri, call.abort.signal).catch((err: unknown) => void call.services.log.debug(`[listen] resource ${uri} not subscribed: ${errorMessage(err)}`));
        if (release) {
            uris.add(uri);
            unfollow.push(release);
        }
    }
    return uris;
}

/**
 * `subscriptions/listen` (SEP-2575, SEP-2663): the response stream stays open and carries what the
 * client opted in to, tagged with the subscription id: `notifications/tasks` for the task ids it
 * named (each a full DetailedTask, the first one at once), the tools, prompts and resources
 * `list_changed` notifications (those of a declared capability), and `notifications/resources/updated`
 * for the resource URIs it named (an embedder's, held while the stream is open). The hub treats the
 * stream as one more link of the caller's identity. It ends when the client closes it (HTTP) or
 * cancels the request (stdio).
 */
export async function listen(call: RequestContext, params: Params): Promise<Record<string, unknown>> {
    const { reply, abort } = call;
    const wanted = optionalObject(params, 'notifications') ?? {};
    // A RequestId, as the request's own id: a number stays a number.
    const subscriptionId = call.id;
    const meta = { [SUBSCRIPTION_ID_META]: subscriptionId };
    const agreed: Record<string, unknown> = {};
    const capabilities = capabilitiesOf(call.services, '2026-07-28');
    for (const { key, feature } of LIST_CHANGES.values()) {
        if (wanted[key] === true && capabilities[feature] !== undefined) {
            agreed[key] = true;
        }
    }
    const wantedUris = resourceUris(wanted.resourceSubscriptions);
    const taskIds = new Set<string>();
    const unfollow: (() => void)[] = [];
    if (wanted.taskIds !== undefined) {
        requireTasksExtension(call.envelope!, 'Task status notifications');
        if (!Array.isArray(wanted.taskIds) || wanted.taskIds.some(id => typeof id !== 'string') || wanted.taskIds.length > MAX_TASK_IDS) {
            throw invalidParams(`notifications.taskIds must be an array of at most ${MAX_TASK_IDS} task id strings`);
        }
        const { runtime } = call.services;
        // Only the caller's own tasks; unknown ids are left out of the acknowledgement, not an error.
        for (const taskId of wanted.taskIds as string[]) {
            const record = await runtime.get(call.identity, taskId).catch(() => undefined);
            if (record) {
                taskIds.add(taskId);
                // An open stream naming the task is its client following it (--abandon-after).
                unfollow.push(runtime.follow(call.identity, record));
            }
        }
        agreed.taskIds = [...taskIds];
    }
    let uris: Set<string> | undefined;
    if (wantedUris !== undefined) {
        // A wrapped server still on its first start may hold these resources: it is waited for, a while.
        const starting = call.services.toolsStarting;
        if (starting?.pending()) {
            await starting.wait(abort.signal, LIST_WAIT_MS);
        }
        uris = await holdResources(call, wantedUris, unfollow);
        agreed.resourceSubscriptions = [...uris];
    }
    reply.send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: meta, notifications: agreed } });

    const send = (taskId: string) => {
        const { runtime } = call.services;
        runtime
            .get(call.identity, taskId)
            .then(record => detailedTask(runtime, record, call.identity.isOwner ? call.services.tools : undefined))
            .then(
                task => reply.send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: { ...(task._meta as object | undefined), ...meta } } }),
                err => call.services.log.debug(`[listen] task ${taskId} not sent: ${errorMessage(err)}`),
            );
    };
    const link: ClientLink = {
        identity: { ...call.identity, isOwner: false } satisfies ClientIdentity,
        supports: () => false,
        notify: (method, params, relatedTaskId) => {
            if (method === TASK_STATUS_METHOD && relatedTaskId !== undefined && taskIds.has(relatedTaskId)) {
                send(relatedTaskId);
            } else if (LIST_CHANGES.has(method) && agreed[LIST_CHANGES.get(method)!.key] === true) {
                reply.send({ jsonrpc: '2.0', method, params: { _meta: meta } });
            } else if (method === 'notifications/resources/updated' && uris?.has(params.uri as string)) {
                reply.send({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } });
            }
        },
        request: () => Promise.reject(new Error('A subscriptions/listen stream carries no requests')),
    };
    const registration = call.services.hub.add(link);
    for (const taskId of taskIds) {
        send(taskId);
    }
    await new Promise<void>(resolve => {
        // Left at once, not a turn later: a stdio pipe that closes counts its client's links right away.
        const end = () => {
            registration.dispose();
            for (const done of unfollow) {
                done();
            }
            resolve();
        };
        if (abort.signal.aborted) {
            end();
        } else {
            abort.signal.addEventListener('abort', end, { once: true });
        }
    });
    return { resultType: 'complete', _meta: meta };
}
