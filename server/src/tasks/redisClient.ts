// The Redis client library, behind one module: esbuild bundles it as dist/redis-client.js, loaded
// only with --store redis, so the in-memory default does not parse its megabyte at every start.
export { createClient, ErrorReply } from 'redis';
