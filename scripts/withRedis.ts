/**
 * Runs a command with a throw-away redis-server (Debian's `redis-server`, on a free loopback port)
 * and MCP_TASKS_TEST_STORE pointing at it, then stops the server: `tsx scripts/withRedis.ts -- CMD…`.
 */
import { spawn } from 'node:child_process';
import { startRedis } from '../test/support/redisHelpers.js';

async function main(): Promise<number> {
    const separator = process.argv.indexOf('--');
    const [command, ...args] = separator >= 0 ? process.argv.slice(separator + 1) : [];
    if (!command) {
        process.stderr.write('usage: tsx scripts/withRedis.ts -- COMMAND [ARGS…]\n');
        return 2;
    }
    const redis = await startRedis();
    process.stderr.write(`[with-redis] redis-server on ${redis.url}\n`);
    try {
        const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, MCP_TASKS_TEST_STORE: redis.url } });
        return await new Promise<number>(resolve => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
    } finally {
        await redis.stop();
    }
}

main().then(
    code => process.exit(code),
    err => {
        process.stderr.write(`[with-redis] ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
    },
);
