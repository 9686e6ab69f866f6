import type { Plugin } from 'esbuild';

/** See redisClientApart.mjs. */
export declare const redisClientApart: Plugin;
