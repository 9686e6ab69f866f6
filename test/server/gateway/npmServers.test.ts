import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { textOf } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, type Gateway } from './gatewayHelpers.js';

// The servers people run, as they run them: a Claude Desktop file of three npx entries with no
// `env` key (server-filesystem, server-memory and server-everything, each through `npx -y` at the
// version package.json pins, so npm ci leaves them in npm's cache and npx finds them there), the
// gateway started with a user's environment. Real processes all the way: the gateway, npx, the
// servers. A stripped environment (the SDK's default: HOME, PATH, SHELL and TERM only) started only
// the entries with an `env` key, and cost server-memory the MEMORY_FILE_PATH the user set.

const PACKAGE = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const pinned = (name: string) => `@modelcontextprotocol/${name}@${PACKAGE.devDependencies[`@modelcontextprotocol/${name}`]}`;
/** An npx download on a cold cache can take a minute on the shared machine. */
const UP_MS = 240_000;

describe('real npm servers through npx behind the gateway, from a Claude Desktop file without env keys', { timeout: 600_000 }, () => {
    let gateway: Gateway;
    let dir: string;
    let files: string;
    let memoryFile: string;

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'npm-servers-'));
        files = join(dir, 'files');
        memoryFile = join(dir, 'memory.jsonl');
        mkdirSync(files);
        writeFileSync(join(files, 'hello.txt'), 'hello from the gateway test\n');
        const config = join(dir, 'claude_desktop_config.json');
        writeFileSync(
            config,
            JSON.stringify({
                mcpServers: {
                    filesystem: { command: 'npx', args: ['-y', pinned('server-filesystem'), files] },
                    memory: { command: 'npx', args: ['-y', pinned('server-memory')] },
                    everything: { command: 'npx', args: ['-y', pinned('server-everything')] },
                },
            }),
        );
        // The user's environment: where server-memory keeps its graph, and npm told to use its cache first.
        gateway = await stdioGateway(['--wrap-config', config], {}, { MEMORY_FILE_PATH: memoryFile, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' });
        await waitUntil(() => gateway.log.lines.some(line => /\[gateway\] \d+ of 3 wrapped server\(s\) up after their first start/.test(line)), 'the first starts of the three npx servers', { on: gateway.log.changes, timeoutMs: UP_MS });
    });

    after(async () => {
        await gateway?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it('starts all three, each logged as started through npx and connected', () => {
        const log = gateway.log.lines.join('\n');
        for (const name of ['filesystem', 'memory', 'everything']) {
            assert.match(log, new RegExp(`\\[${name}\\] starting: npx -y @modelcontextprotocol/server-${name}@`));
            assert.match(log, new RegExp(`INFO {2}\\[${name}\\] connected \\(`), `${name} did not connect:\n${log}`);
        }
        assert.match(log, /\[gateway\] 3 of 3 wrapped server\(s\) up after their first start/);
    });

    it("server-filesystem reads a file in the folder its arguments name", async () => {
        const result = await gateway.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'hello.txt') } });
        assert.equal(result.isError, undefined);
        assert.match(textOf(result), /^hello from the gateway test/);
        const outside = await gateway.client.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } });
        assert.equal(outside.isError, true);
        assert.match(textOf(outside), /Access denied|outside allowed directories/i);
    });

    it("server-memory keeps its graph where the gateway's environment says (its entry has no env key)", async () => {
        await gateway.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'GatewayTest', entityType: 'test', observations: ['made through npx'] }] } });
        await waitUntil(() => existsSync(memoryFile) && readFileSync(memoryFile, 'utf8').includes('GatewayTest'), `server-memory to write ${memoryFile}`, { everyMs: 50 });
        const graph = textOf(await gateway.client.callTool({ name: 'read_graph', arguments: {} }));
        assert.match(graph, /GatewayTest/);
    });

    it('server-everything answers echo, plain and as a start_ task', async () => {
        assert.equal(textOf(await gateway.client.callTool({ name: 'echo', arguments: { message: 'through npx' } })), 'Echo: through npx');
        const started = await gateway.client.callTool({ name: 'start_echo', arguments: { message: 'as a task' } });
        const taskId = (started.structuredContent as { task_id: string }).task_id;
        const got = await gateway.client.callTool({ name: 'get_task', arguments: { task_id: taskId, wait_seconds: 10 } });
        assert.match(JSON.stringify(got.structuredContent), /Echo: as a task/);
    });
});
