/**
 * `@mcp-tasks/server/gateway`: other MCP servers' tools served as task tools by a server of yours
 * (what `--wrap` does on the command line). Apart from the main entry because it needs the MCP
 * SDK's client, an optional peer of this package.
 */
export { Gateway, type GatewayOptions } from './gateway.js';
export { attachGateway, gatewayServerOptions, type GatewayServing } from './attach.js';
export { downstreamSpecs, parseWrapConfig, readWrapConfig, type DownstreamSpec, type StdioSpec, type HttpSpec, type WrapFlags } from './config.js';
export type { Downstream, DownstreamState } from './downstream.js';
