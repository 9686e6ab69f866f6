// The server library driven in process over one stdio session, as the in-process probes drive it.
import { PassThrough, Writable } from 'node:stream';
import { connectStdio, createTasksServer, PROTOCOL_2025, silentLogger, type TasksServer, type ToolDefinition } from '../../server/src/index.js';
import type { Transport } from '../../server/src/rpc/transport.js';

export type Call = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** A server with `tools` and an initialized session; `output` sees every frame the server sends on its own (notifications). */
export async function inProcessServer(
    tools: ToolDefinition[],
    output: Writable = new Writable({ write: (_chunk, _encoding, done) => done() }),
): Promise<{ core: TasksServer; call: Call }> {
    const core = createTasksServer({ tools, logger: silentLogger, maxTasksPerClient: 10_000 });
    const { session } = connectStdio(core, { input: new PassThrough(), output });
    let id = 1;
    const sink: Transport = { send: () => true, close: () => undefined };
    const call: Call = async (method, params) => {
        const response = await session.rpc.handleRequest({ jsonrpc: '2.0', id: id++, method, params }, sink);
        if (response.error) {
            throw new Error(`${method}: ${JSON.stringify(response.error)}`);
        }
        return response.result!;
    };
    await call('initialize', { protocolVersion: PROTOCOL_2025, capabilities: {}, clientInfo: { name: 'probe', version: '1' } });
    return { core, call };
}

/** Cancels every task at once; each tasks/cancel's time in ms (it answers once the task's processes are gone). */
export function cancelAll(call: Call, taskIds: readonly string[]): Promise<number[]> {
    return Promise.all(
        taskIds.map(async taskId => {
            const start = performance.now();
            const answer = await call('tasks/cancel', { taskId });
            if (answer.status !== 'cancelled') {
                throw new Error(`tasks/cancel of ${taskId} answered ${String(answer.status)}`);
            }
            return performance.now() - start;
        }),
    );
}
