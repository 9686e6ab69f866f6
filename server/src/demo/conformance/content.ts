import { z } from 'zod';
import { defineTool, textResult, type CallToolResult, type ToolDefinition } from '../../tools/types.js';

// Tools whose names and answers the official conformance suite (@modelcontextprotocol/conformance)
// prescribes; served only with --conformance-fixtures.

/** A 1x1 transparent PNG and a 1-sample WAV: the smallest valid media. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WAV = Buffer.from('UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==', 'base64').toString('base64');

const noArgs = z.object({});

function fixed(name: string, description: string, result: CallToolResult): ToolDefinition {
    return defineTool({
        name,
        title: name,
        description,
        inputSchema: noArgs,
        annotations: { readOnlyHint: true, openWorldHint: false },
        taskSupport: 'forbidden',
        run: async () => result,
    });
}

export function contentFixtures(onToolsChanged: () => void): ToolDefinition[] {
    return [
        fixed('test_simple_text', 'Returns a fixed text (conformance fixture).', textResult('This is a simple text response for testing.')),
        fixed('test_image_content', 'Returns a small PNG image (conformance fixture).', { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
        fixed('test_audio_content', 'Returns a small WAV clip (conformance fixture).', { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
        fixed('test_embedded_resource', 'Returns an embedded text resource (conformance fixture).', {
            content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
        }),
        fixed('test_multiple_content_types', 'Returns text, an image and a resource (conformance fixture).', {
            content: [
                { type: 'text', text: 'Multiple content types test:' },
                { type: 'image', data: PNG, mimeType: 'image/png' },
                { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
            ],
        }),
        fixed('test_error_handling', 'Always reports a tool error (conformance fixture).', textResult('This tool intentionally returns an error for testing', true)),
        fixed('test_logging_tool', 'Returns at once; logs nothing unless asked (conformance fixture).', textResult('Logging tool done.')),
        // server-sse-polling (SEP-1699) calls it to see the server close the stream mid-call and
        // resume it on a GET with Last-Event-ID.
        defineTool({
            name: 'test_reconnection',
            title: 'test_reconnection',
            description:
                "Closes the connection of its call's response stream before it answers (SSE polling, SEP-1699): the client gets the result by resuming the stream with GET and Last-Event-ID. Where a stream cannot be resumed (stdio, 2026-07-28, a client before 2025-11-25) it answers on the call's own stream (conformance fixture).",
            inputSchema: noArgs,
            annotations: { readOnlyHint: true, openWorldHint: false },
            taskSupport: 'forbidden',
            async run(_args, ctx) {
                return ctx.closeConnection?.()
                    ? textResult('Reconnection test completed: the server closed the connection first, and this result came on the resumed stream.')
                    : textResult('Answered on the original stream: this connection cannot be resumed.');
            },
        }),
        defineTool({
            name: 'test_tool_with_progress',
            title: 'test_tool_with_progress',
            description: 'Reports progress 0, 50 and 100 of 100 about 50 ms apart (conformance fixture).',
            inputSchema: noArgs,
            taskSupport: 'forbidden',
            async run(_args, ctx) {
                ctx.progress(0, 100);
                await ctx.sleep(50);
                ctx.progress(50, 100);
                await ctx.sleep(50);
                ctx.progress(100, 100);
                return textResult('Progress reported.');
            },
        }),
        defineTool({
            name: 'test_trigger_tool_change',
            title: 'test_trigger_tool_change',
            description: 'Announces a change of the tool list, as a reload would (conformance fixture).',
            inputSchema: noArgs,
            taskSupport: 'forbidden',
            async run() {
                onToolsChanged();
                return textResult('Tool list change announced.');
            },
        }),
        defineTool({
            name: 'json_schema_2020_12_tool',
            title: 'json_schema_2020_12_tool',
            description: 'Tool with JSON Schema 2020-12 features (conformance fixture).',
            inputSchema: z.looseObject({}),
            jsonInputSchema: {
                $schema: 'https://json-schema.org/draft/2020-12/schema',
                type: 'object',
                $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
                properties: {
                    name: { type: 'string' },
                    address: { $ref: '#/$defs/address' },
                    contactMethod: { type: 'string', enum: ['phone', 'email'] },
                    phone: { type: 'string' },
                    email: { type: 'string' },
                },
                allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
                if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
                then: { required: ['phone'] },
                else: { required: ['email'] },
                additionalProperties: false,
            },
            taskSupport: 'forbidden',
            run: async args => textResult(`Received ${JSON.stringify(args)}`),
        }),
        defineTool({
            name: 'test_header_param',
            title: 'test_header_param',
            description: 'Echoes its region, which clients mirror in the Mcp-Param-Region header (conformance fixture).',
            inputSchema: z.object({ region: z.string() }),
            jsonInputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
            taskSupport: 'forbidden',
            run: async ({ region }) => textResult(`Region: ${region}`),
        }),
    ];
}
