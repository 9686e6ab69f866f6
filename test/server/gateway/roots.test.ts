import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../../support/helpers.js';
import { waitUntil } from '../../support/wait.js';
import { stdioGateway, type Gateway } from './gatewayHelpers.js';

// A stdio gateway lends its host's roots to the servers it wraps: server-filesystem (through npx,
// at the version package.json pins) asks roots/list, gets the host's folders instead of the one
// its arguments name, and asks again when the host says its roots changed.

const PACKAGE = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const FILESYSTEM = `@modelcontextprotocol/server-filesystem@${PACKAGE.devDependencies['@modelcontextprotocol/server-filesystem']}`;

describe("the host's roots reach server-filesystem through the gateway", { timeout: 300_000 }, () => {
    let gateway: Gateway;
    let dir: string;
    const folder = (name: string) => realpathSync(join(dir, name));
    let roots: { uri: string; name: string }[];

    before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'roots-'));
        for (const name of ['from-args', 'root-a', 'root-b']) {
            mkdirSync(join(dir, name));
            writeFileSync(join(dir, name, 'which.txt'), `${name}\n`);
        }
        roots = [{ uri: pathToFileURL(folder('root-a')).href, name: 'a' }];
        gateway = await stdioGateway(['--wrap', '--', 'npx', '-y', FILESYSTEM, folder('from-args')], { roots: { listChanged: true } }, { npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' });
        gateway.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
        await gateway.log.waitFor(/\[server-filesystem\] connected \(/);
    });

    after(async () => {
        await gateway?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    const allowed = async () => textOf(await gateway.client.callTool({ name: 'list_allowed_directories', arguments: {} }));

    it("serves the host's root in place of the folder its arguments name", async () => {
        await waitUntil(async () => (await allowed()).includes(folder('root-a')), 'server-filesystem to take the host root', { everyMs: 200, timeoutMs: 60_000 });
        assert.ok(!(await allowed()).includes(folder('from-args')));
        assert.equal(textOf(await gateway.client.callTool({ name: 'read_text_file', arguments: { path: join(folder('root-a'), 'which.txt') } })).trim(), 'root-a');
        const refused = await gateway.client.callTool({ name: 'read_text_file', arguments: { path: join(folder('from-args'), 'which.txt') } });
        assert.equal(refused.isError, true);
    });

    it('asks again when the host says its roots changed', async () => {
        roots = [{ uri: pathToFileURL(folder('root-b')).href, name: 'b' }];
        await gateway.client.sendRootsListChanged();
        await waitUntil(async () => (await allowed()).includes(folder('root-b')), 'server-filesystem to take the changed root', { everyMs: 200, timeoutMs: 60_000 });
        assert.equal(textOf(await gateway.client.callTool({ name: 'read_text_file', arguments: { path: join(folder('root-b'), 'which.txt') } })).trim(), 'root-b');
    });
});
