import type { TasksServer, TasksServerOptions } from '../server.js';
import type { McpSession } from '../mcp/rev2025/session.js';
import type { ToolDefinition } from '../tools/types.js';
import type { Gateway } from './gateway.js';

export interface GatewayServing {
    /** The server's own instructions; each wrapped server's follow them. */
    instructions: string;
    /** Every tool the server serves, the gateway's among them, as of now (called again whenever the wrapped tools change). */
    tools(): ToolDefinition[];
}

/**
 * What a gateway adds to `createTasksServer`'s options: its tools (through `serving.tools`), its
 * servers' instructions after the server's own, and the prompts, resources, completions and
 * logging it forwards. Then `attachGateway` once the server exists.
 */
export function gatewayServerOptions(
    gateway: Gateway,
    serving: GatewayServing,
): Required<Pick<TasksServerOptions, 'instructions' | 'tools' | 'methods' | 'capabilities' | 'resourceSubscriptions' | 'toolsStarting'>> {
    return {
        instructions: gateway.instructions(serving.instructions),
        tools: serving.tools(),
        methods: gateway.passThrough.table(),
        capabilities: gateway.passThrough.capabilities(),
        resourceSubscriptions: gateway.passThrough.subscriptions,
        toolsStarting: gateway.starting,
    };
}

/**
 * Ties a gateway to the server made with gatewayServerOptions and starts its wrapped servers, in
 * the background: the server answers its first requests at once, and each wrapped server's
 * tools, prompts and resources are announced (list_changed) as it connects and after each restart.
 */
export function attachGateway(gateway: Gateway, core: TasksServer, serving: GatewayServing): Promise<void> {
    gateway.onToolsChanged = () => core.setTools(serving.tools());
    gateway.onNotification = (method, params) => core.broadcast(method, params);
    gateway.onConnected = downstream => {
        // What it offers is known now: hosts that initialize from here on are told, and those that listed before list again.
        core.services.instructions = gateway.instructions(serving.instructions);
        core.services.capabilities = gateway.passThrough.capabilities();
        for (const feature of ['prompts', 'resources'] as const) {
            if (downstream.capabilities?.[feature] !== undefined) {
                core.broadcast(`notifications/${feature}/list_changed`);
            }
        }
    };
    return gateway.start();
}

/**
 * The one host of a stdio gateway lends the wrapped servers its roots: their roots/list is asked
 * of it, and its `notifications/roots/list_changed` (or its first `notifications/initialized`,
 * when it declared roots) makes each server ask again. server-filesystem, for one, then serves the
 * host's folders instead of those its arguments name.
 */
export function forwardRoots(gateway: Gateway, host: McpSession): void {
    gateway.setRoots(async signal => {
        if (!host.declaresRoots || host.isClosed) {
            return [];
        }
        const answer = await host.request('roots/list', {}, { signal });
        return Array.isArray(answer.roots) ? answer.roots : [];
    });
    host.rpc.onNotification = method => {
        if (method === 'notifications/roots/list_changed' || (method === 'notifications/initialized' && host.declaresRoots)) {
            gateway.rootsChanged();
        }
    };
}
