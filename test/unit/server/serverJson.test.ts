/** server/server.json, the MCP Registry entry, against the registry's schema and the package it names. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import Ajv from 'ajv';
import { FLAGS, shownDefault } from '../../../server/src/flags/table.js';
import addFormats from 'ajv-formats';

const ROOT = resolve(__dirname, '../../..');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

// The official schema, vendored unchanged from
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json
// (modelcontextprotocol/static, schemas/2025-12-11/server.schema.json). A newer schema is a
// deliberate change: replace the file, its name here, and server.json's "$schema" together.
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const schema = readJson(join(__dirname, 'schemas/server.schema.2025-12-11.json'));

// The schema is generated from OpenAPI and carries its annotations (example, discriminator): strict off.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

interface ServerJson {
    $schema: string;
    name: string;
    version: string;
    description: string;
    packages: { registryType: string; identifier: string; version: string; runtimeHint?: string; transport: { type: string }; packageArguments?: { type: string; value?: string; name?: string; default?: string; choices?: readonly string[] }[] }[];
}

const serverJson = readJson(join(ROOT, 'server/server.json')) as unknown as ServerJson;
const pkg = readJson(join(ROOT, 'server/package.json')) as { name: string; version: string; mcpName: string; bin: Record<string, string> };

describe('server.json (MCP Registry)', () => {
    it("its named arguments are flags of the flag table, with the table's defaults and choices", () => {
        const named = serverJson.packages[0]!.packageArguments!.filter(arg => arg.type === 'named');
        assert.ok(named.length > 0);
        for (const arg of named) {
            const flag = FLAGS.find(candidate => `--${candidate.name}` === arg.name);
            assert.ok(flag, `${arg.name} is a flag`);
            assert.equal(arg.default, shownDefault(flag), arg.name);
            assert.deepEqual(arg.choices, 'choices' in flag ? flag.choices : undefined, arg.name);
        }
    });

    it('validates against the registry schema it names', () => {
        assert.equal(schema.$id, SCHEMA_URL);
        assert.equal(serverJson.$schema, SCHEMA_URL);
        assert.ok(validate(serverJson), ajv.errorsText(validate.errors));
    });

    it('the schema rejects what the registry rejects, so the pass above means something', () => {
        const invalid = [
            { ...serverJson, description: 'x'.repeat(101) },
            { ...serverJson, name: 'no-namespace' },
            { ...serverJson, packages: [{ ...serverJson.packages[0]!, version: 'latest' }] },
            { ...serverJson, packages: [{ ...serverJson.packages[0]!, transport: undefined }] },
        ];
        for (const candidate of invalid) {
            assert.equal(validate(JSON.parse(JSON.stringify(candidate))), false, JSON.stringify(candidate).slice(0, 200));
        }
    });

    it('names the npm package it describes: mcpName, identifier and versions agree', () => {
        // The registry checks ownership through package.json's mcpName on npm.
        assert.equal(serverJson.name, pkg.mcpName);
        assert.equal(serverJson.version, pkg.version);
        assert.equal(serverJson.packages.length, 1);
        const [entry] = serverJson.packages;
        assert.deepEqual(
            { registryType: entry!.registryType, identifier: entry!.identifier, version: entry!.version, runtimeHint: entry!.runtimeHint, transport: entry!.transport },
            { registryType: 'npm', identifier: pkg.name, version: pkg.version, runtimeHint: 'npx', transport: { type: 'stdio' } },
        );
        // npx runs a package's bin when all its names are one file (mcp-tasks, and mcp-tasks-server as before); with --stdio it speaks MCP on stdin/stdout.
        assert.deepEqual(Object.keys(pkg.bin), ['mcp-tasks', 'mcp-tasks-server']);
        assert.equal(new Set(Object.values(pkg.bin)).size, 1);
        assert.ok(entry!.packageArguments?.some(arg => arg.type === 'positional' && arg.value === '--stdio'));
    });
});
