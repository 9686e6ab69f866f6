// esbuild plugins: in a server bundle, a heavy client library stays a separate file beside the
// bundle, required on first use, so other starts do not parse it: the Redis client
// (redis-client.js, with --store redis) and the MCP SDK client of the gateway (gateway-client.js,
// with --wrap…); and the CLI itself, beside the launcher that turns on the compile cache first (launch.ts).
function keepApart(name, filter, file) {
    return {
        name,
        setup(build) {
            build.onResolve({ filter }, args => (args.kind === 'entry-point' ? undefined : { path: file, external: true }));
        },
    };
}

export const redisClientApart = keepApart('redis-client-apart', /\/redisClient\.js$/, './redis-client.js');
export const gatewayClientApart = keepApart('gateway-client-apart', /\/sdkClient\.js$/, './gateway-client.js');
export const cliApart = keepApart('cli-apart', /\/cli\.js$/, './server-main.js');
