import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL_2025, RELATED_TASK_META_KEY } from '../../server/src/contract.js';
import type { Terminal } from './ui.js';

export { PROTOCOL_2025, RELATED_TASK_META_KEY as RELATED_TASK };

type Json = Record<string, unknown>;
type Message = Json & { id?: string | number; method?: string; params?: Json; result?: Json; error?: { code: number; message: string } };

/**
 * Wraps the client's transport and prints every JSON-RPC message in one compact line:
 * `→` client to server, `←` the server's response, `⇠` what the server sends on its own
 * (notifications and requests on the SSE streams).
 */
export class WireLog implements Transport {
    onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
    onclose?: () => void;
    onerror?: (error: Error) => void;
    /** Methods of our requests that are awaiting a response, by id. */
    private readonly pending = new Map<string | number, string>();

    constructor(
        readonly inner: Transport,
        private readonly term: Terminal,
    ) {}

    get sessionId(): string | undefined {
        return this.inner.sessionId;
    }

    setProtocolVersion(version: string): void {
        this.inner.setProtocolVersion?.(version);
    }

    start(): Promise<void> {
        this.inner.onmessage = (message, extra) => {
            this.show('in', message as Message);
            this.onmessage?.(message, extra);
        };
        this.inner.onclose = () => this.onclose?.();
        this.inner.onerror = error => this.onerror?.(error);
        return this.inner.start();
    }

    send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
        this.show('out', message as Message);
        return this.inner.send(message, options);
    }

    close(): Promise<void> {
        return this.inner.close();
    }

    private show(dir: 'in' | 'out', message: Message): void {
        const { paint } = this.term;
        if (message.method !== undefined) {
            if (dir === 'out' && message.id !== undefined) {
                this.pending.set(message.id, message.method);
            }
            const arrow = dir === 'out' ? paint.blue('→') : paint.magenta('⇠');
            this.term.print(`  ${arrow} ${paint.bold(message.method)} ${describeParams(message.method, message.params ?? {})}`.trimEnd());
            return;
        }
        if (dir === 'out') {
            // Our answer to a server request (elicitation, sampling).
            this.term.print(`  ${paint.blue('→')} ${paint.bold('response')} ${clip(JSON.stringify(message.result ?? message.error))}`);
            return;
        }
        const method = message.id !== undefined ? this.pending.get(message.id) : undefined;
        if (message.id !== undefined) {
            this.pending.delete(message.id);
        }
        const text = message.error ? paint.red(`error ${message.error.code}: ${message.error.message}`) : describeResult(method, message.result ?? {});
        this.term.print(`  ${paint.green('←')} ${text}`);
    }
}

function describeParams(method: string, params: Json): string {
    const meta = (params._meta ?? {}) as Json;
    const related = meta[RELATED_TASK_META_KEY] as { taskId?: string } | undefined;
    const relatedNote = related ? ` [related-task ${related.taskId}]` : '';
    switch (method) {
        case 'initialize':
            return `protocolVersion=${String(params.protocolVersion)} capabilities=${JSON.stringify(params.capabilities)}`;
        case 'tools/call': {
            const task = params.task ? ` task=${JSON.stringify(params.task)}` : '';
            const token = meta.progressToken !== undefined ? ` progressToken=${JSON.stringify(meta.progressToken)}` : '';
            return `${String(params.name)} ${JSON.stringify(params.arguments ?? {})}${task}${token}`;
        }
        case 'tasks/get':
        case 'tasks/result':
        case 'tasks/cancel':
            return String(params.taskId);
        case 'notifications/progress':
            return `${String(params.progress)}/${String(params.total ?? '?')} "${String(params.message ?? '')}"${relatedNote}`;
        case 'notifications/tasks/status':
            return `${String(params.taskId)} → ${statusText(params)}`;
        case 'elicitation/create':
            return `"${String(params.message)}" fields=${Object.keys(((params.requestedSchema as Json | undefined)?.properties as Json | undefined) ?? {}).join(',')}${relatedNote}`;
        case 'sampling/createMessage': {
            const first = (params.messages as { content?: { text?: string } }[] | undefined)?.[0];
            return `"${first?.content?.text ?? ''}" maxTokens=${String(params.maxTokens)}${relatedNote}`;
        }
        default:
            return Object.keys(params).length > 0 ? clip(JSON.stringify(params)) : '';
    }
}

function describeResult(method: string | undefined, result: Json): string {
    switch (method) {
        case 'initialize': {
            const info = result.serverInfo as { name?: string; version?: string } | undefined;
            return `${info?.name ?? '?'} ${info?.version ?? '?'}, protocolVersion=${String(result.protocolVersion)}`;
        }
        case 'tools/list': {
            const tools = (result.tools ?? []) as { name: string; execution?: { taskSupport?: string } }[];
            return `${tools.length} tools: ${tools.map(t => `${t.name}(${t.execution?.taskSupport ?? 'forbidden'})`).join(' ')}`;
        }
        case 'tools/call':
        case 'tasks/result': {
            const task = result.task as Json | undefined;
            if (task) {
                return `CreateTaskResult task=${String(task.taskId)} status=${String(task.status)} ttl=${String(task.ttl)} pollInterval=${String(task.pollInterval)}`;
            }
            const related = ((result._meta ?? {}) as Json)[RELATED_TASK_META_KEY] as { taskId?: string } | undefined;
            return `${toolResultText(result)}${related ? ` [related-task ${related.taskId}]` : ''}`;
        }
        case 'tasks/get':
        case 'tasks/cancel':
            return statusText(result);
        default:
            return clip(JSON.stringify(result));
    }
}

function statusText(task: Json): string {
    return `${String(task.status)}${task.statusMessage ? ` "${String(task.statusMessage)}"` : ''}`;
}

/** A CallToolResult in one line: its text, structured content and error flag. */
export function toolResultText(result: Json): string {
    const text = ((result.content ?? []) as { text?: string }[]).map(part => part.text ?? '').join('');
    const structured = result.structuredContent ? ` structuredContent=${JSON.stringify(result.structuredContent)}` : '';
    return `${result.isError ? 'isError ' : ''}${JSON.stringify(text)}${structured}`;
}

function clip(text: string, max = 160): string {
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Builds the curl command that sends the same message on the demo's session. */
export class CurlCommands {
    constructor(private readonly withToken: boolean) {}

    /** The exports the printed commands rely on. */
    exports(url: string, sessionId: string | undefined, token: string | undefined): string {
        const vars = [`MCP_URL=${url}`, `MCP_SESSION=${sessionId ?? ''}`, ...(token ? [`MCP_TASKS_TOKEN=${token}`] : [])];
        return `export ${vars.join(' ')}`;
    }

    /** POST one JSON-RPC message (a request, or our answer to a server request) on the session. */
    post(message: Json): string {
        return [
            `curl -sN "$MCP_URL"${this.auth()} -H "Mcp-Session-Id: $MCP_SESSION"`,
            `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: ${PROTOCOL_2025}'`,
            `  -d ${shellQuote(JSON.stringify({ jsonrpc: '2.0', ...message }))}`,
        ].join(' \\\n');
    }

    /** initialize, which opens a session: -i shows the Mcp-Session-Id response header. */
    initialize(params: Json): string {
        return [
            `curl -sN -i "$MCP_URL"${this.auth()}`,
            `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`,
            `  -d ${shellQuote(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }))}`,
        ].join(' \\\n');
    }

    request(method: string, params: Json, id: number | string = 1): string {
        return this.post({ id, method, params });
    }

    /** The session's GET stream: server notifications and requests arrive here. */
    getStream(): string {
        return `curl -sN "$MCP_URL"${this.auth()} -H "Mcp-Session-Id: $MCP_SESSION" -H 'Accept: text/event-stream' -H 'MCP-Protocol-Version: ${PROTOCOL_2025}'`;
    }

    private auth(): string {
        return this.withToken ? ' -H "Authorization: Bearer $MCP_TASKS_TOKEN"' : '';
    }
}

/** Single-quotes text for a POSIX shell. */
function shellQuote(text: string): string {
    return `'${text.replaceAll("'", "'\\''")}'`;
}
