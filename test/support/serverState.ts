/**
 * Imported for its effect by every helper that starts a server (helpers.ts, fakeVscode.ts, runToEnd.ts): the
 * servers a test starts never write into the user's own data folder. The server's default store
 * keeps tasks in a file under $XDG_STATE_HOME; here that is a fresh folder of this test process,
 * removed when it exits, and servers started without --store keep tasks in memory as before, so
 * only the tests of the durable store (which pass --store and --data-dir) touch a file. The state
 * folder also covers servers the extension's launcher starts, whose MCP_TASKS_ variables it clears.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.MCP_TASKS_TEST_STATE) {
    const state = mkdtempSync(join(tmpdir(), 'mcp-tasks-test-state-'));
    process.env.MCP_TASKS_TEST_STATE = state;
    process.env.XDG_STATE_HOME = state;
    process.on('exit', () => rmSync(state, { recursive: true, force: true }));
}
process.env.MCP_TASKS_STORE ||= 'memory';

/**
 * `--store memory` unless `args` name a store: for servers started through the SDK's stdio
 * transport without `env`, which passes on only a few variables (HOME, PATH, …), not the two above.
 */
export function inMemory(args: readonly string[] = []): string[] {
    // What follows `--` is a wrapped program's command line, not this server's.
    const dashes = args.indexOf('--');
    return (dashes === -1 ? args : args.slice(0, dashes)).includes('--store') ? [] : ['--store', 'memory'];
}
