import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    TaskStatusNotificationSchema,
    type CreateMessageRequest,
    type CreateMessageResult,
    type ElicitRequest,
    type ElicitResult,
    type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { Terminal } from './ui.js';
import { WireLog } from './wire.js';

/** What the demo's client declares: it can answer form elicitation and sampling. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {} }, sampling: {} };

/** Answers a request the server sends; `requestId` is its JSON-RPC id (a reply by hand must reuse it). */
export type InputHandler<Req, Res> = (request: Req, requestId: string | number) => Promise<Res>;

/** The outcome of the session's GET request: the stream the server pushes notifications and requests on. */
export interface GetStream {
    status: number;
    contentType: string;
}

/**
 * The demo's MCP session: an SDK Client over Streamable HTTP whose messages are all printed,
 * with hooks the steps set to answer elicitation and sampling.
 */
export class DemoSession {
    readonly statuses: Task[] = [];
    onElicit: InputHandler<ElicitRequest, ElicitResult> = async () => ({ action: 'decline' });
    onSample?: InputHandler<CreateMessageRequest, CreateMessageResult>;
    private constructor(
        readonly client: Client,
        readonly transport: StreamableHTTPClientTransport,
        readonly getStream: Promise<GetStream>,
    ) {}

    static async open(url: string, token: string | undefined, term: Terminal): Promise<DemoSession> {
        let sawGet!: (stream: GetStream) => void;
        const getStream = new Promise<GetStream>(resolve => (sawGet = resolve));
        const transport = new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
            // Watch the GET request the SDK opens after initialization, to confirm the stream.
            fetch: async (input, init) => {
                const response = await fetch(input, init);
                if (init?.method === 'GET') {
                    sawGet({ status: response.status, contentType: response.headers.get('content-type') ?? '' });
                }
                return response;
            },
        });
        const client = new Client({ name: 'mcp-tasks-demo', version: '1.0.0' }, { capabilities: CLIENT_CAPABILITIES });
        const session = new DemoSession(client, transport, getStream);
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => session.onElicit(request, extra.requestId));
        client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => {
            if (!session.onSample) {
                throw new Error('The demo answers sampling only in step 8');
            }
            return session.onSample(request, extra.requestId);
        });
        client.setNotificationHandler(TaskStatusNotificationSchema, notification => {
            session.statuses.push(notification.params as Task);
        });
        await client.connect(new WireLog(transport, term));
        return session;
    }

    /** Statuses that `notifications/tasks/status` reported for one task, in order. */
    statusesOf(taskId: string): string[] {
        return this.statuses.filter(task => task.taskId === taskId).map(task => task.status);
    }

    async close(): Promise<void> {
        await this.transport.terminateSession().catch(() => undefined);
        await this.client.close();
    }
}
