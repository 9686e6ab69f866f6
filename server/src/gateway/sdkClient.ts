// The MCP SDK's client, behind one module: esbuild bundles it as dist/gateway-client.js, loaded
// only when a server is wrapped (--wrap…), so other starts do not parse its quarter megabyte.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export {
    CallToolResultSchema,
    CancelTaskResultSchema,
    CreateMessageRequestSchema,
    CreateTaskResultSchema,
    ElicitRequestSchema,
    ErrorCode,
    GetTaskResultSchema,
    ListRootsRequestSchema,
    LoggingMessageNotificationSchema,
    McpError,
    ProgressNotificationSchema,
    PromptListChangedNotificationSchema,
    ResourceListChangedNotificationSchema,
    ResourceUpdatedNotificationSchema,
    ResultSchema,
    TaskStatusNotificationSchema,
    ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
