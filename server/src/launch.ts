#!/usr/bin/env node
// The entry of dist/server.js: turns on Node's compile cache, then loads the CLI (dist/server-main.js).
// V8 compiles the whole 1.4 MB CLI bundle on every start; with the cache a start reuses the code
// compiled by the one before, which took a third off the first answer to `initialize` (measured,
// docs/HOSTS.md), where a host that waits 3 s for it falls back to no tasks. The cache only serves
// modules loaded after it is on, hence this separate, tiny entry.
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { defaultDataDir } from './util/dataDir.js';

/** Node 22.1+ only; older ones start without the cache. */
type EnableCompileCache = (dir?: string) => unknown;

const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
try {
    // In this user's own data folder, not the shared temp one, where another user could plant
    // code for us to run. NODE_COMPILE_CACHE, when set, wins (Node reads it itself).
    enable?.(process.env.NODE_COMPILE_CACHE ? undefined : join(defaultDataDir(), 'compile-cache'));
} catch {
    // A folder we cannot write costs the cache, never the start.
}
void import('./cli.js');
