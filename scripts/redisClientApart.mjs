// esbuild plugin: in a server bundle, the Redis client stays a separate file (redis-client.js beside
// the bundle), required on first use with --store redis, so other starts do not parse its megabyte.
export const redisClientApart = {
    name: 'redis-client-apart',
    setup(build) {
        build.onResolve({ filter: /\/redisClient\.js$/ }, args => (args.kind === 'entry-point' ? undefined : { path: './redis-client.js', external: true }));
    },
};
