import { expect, type DemoContext } from '../context.js';
import { CLIENT_CAPABILITIES, DemoSession } from '../session.js';
import { PROTOCOL_2025 } from '../wire.js';

/** Step 1: initialize, show both sides' capabilities, confirm the GET stream, list the tools. */
export async function connectStep(ctx: DemoContext): Promise<void> {
    const { term } = ctx;
    term.note(`Streamable HTTP at ${ctx.url}${ctx.token ? ' (bearer token)' : ''}; the SDK Client sends initialize, then opens a GET stream for what the server pushes.`);
    ctx.session = await DemoSession.open(ctx.url, ctx.token, term);
    const { client } = ctx.session;

    const caps = client.getServerCapabilities() ?? {};
    term.note(`server capabilities: ${JSON.stringify(caps)}`);
    term.note(`client capabilities: ${JSON.stringify(CLIENT_CAPABILITIES)}`);
    expect(ctx, `protocol ${PROTOCOL_2025} negotiated`, ctx.session.transport.protocolVersion === PROTOCOL_2025, ctx.session.transport.protocolVersion);
    expect(
        ctx,
        'the server declares tasks.list, tasks.cancel and tasks.requests.tools.call',
        Boolean(caps.tasks?.list && caps.tasks.cancel && caps.tasks.requests?.tools?.call),
        caps.tasks,
    );

    const stream = await Promise.race([ctx.session.getStream, new Promise<undefined>(resolve => setTimeout(() => resolve(undefined), 10_000).unref())]);
    term.note(stream ? `GET ${new URL(ctx.url).pathname} → HTTP ${stream.status} ${stream.contentType}` : 'no GET request within 10 s');
    expect(ctx, 'the GET SSE stream is open (status notifications, elicitation and sampling arrive on it)', stream?.status === 200 && stream.contentType.includes('text/event-stream'), stream);

    const { tools } = await client.listTools();
    expect(ctx, 'tools/list answers with greet and the task tools', ['greet', 'slow_compute', 'failing_job', 'confirm_delete', 'write_haiku'].every(name => tools.some(t => t.name === name)));

    term.command(
        "by hand: the curl commands below read these (MCP_SESSION is the demo's session, so they work while it pauses)",
        ctx.curl.exports(ctx.url, ctx.session.transport.sessionId, ctx.token),
    );
    term.command(
        'curl: initialize a session of your own (-i shows its Mcp-Session-Id header)',
        ctx.curl.initialize({ protocolVersion: PROTOCOL_2025, capabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'curl', version: '1' } }),
    );
    term.command('curl: the GET stream (one per session, and the demo holds its own: use it with your session)', ctx.curl.getStream());
}

/** Step 2: a plain tools/call; greet forbids tasks, so the result comes back in the response. */
export async function greetStep(ctx: DemoContext): Promise<void> {
    const { client } = connected(ctx);
    const args = { name: 'Ada' };
    const result = await client.callTool({ name: 'greet', arguments: args });
    const text = (result.content as { text?: string }[])[0]?.text;
    expect(ctx, 'greet answers in the response itself: "Hello, Ada!"', text === 'Hello, Ada!', text);
    ctx.term.command('curl', ctx.curl.request('tools/call', { name: 'greet', arguments: args }));
}

export function connected(ctx: DemoContext): DemoSession {
    if (!ctx.session) {
        throw new Error('not connected (step 1 failed)');
    }
    return ctx.session;
}
