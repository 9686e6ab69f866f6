import type { TasksServer, TasksServerOptions } from '../server.js';
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
