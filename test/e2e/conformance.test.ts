import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHttpServer, type HttpServer } from '../support/helpers.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency)
// in server mode, against the real server with its fixtures: every scenario the 2026-07-28
// revision requires, and the ten tasks-* scenarios of the tasks extension, which the same run
// includes. The suite has no stdio mode (it takes only --url), so this is HTTP only.
const PACKAGE_JSON = resolve(__dirname, '../../node_modules/@modelcontextprotocol/conformance/package.json');
const CONFORMANCE = join(dirname(PACKAGE_JSON), (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { bin: Record<string, string> }).bin.conformance!);

/**
 * Scenarios for features this server does not offer, with why; their failing checks must all be
 * about the missing method. Everything else must pass.
 */
const NOT_OFFERED: Record<string, string> = {
    'completion-complete': 'no prompts or resource templates, so nothing to complete (completion/complete)',
    'resources-list': 'no resources',
    'resources-read-text': 'no resources',
    'resources-read-binary': 'no resources',
    'resources-templates-read': 'no resources',
    'prompts-list': 'no prompts',
    'prompts-get-simple': 'no prompts',
    'prompts-get-with-args': 'no prompts',
    'prompts-get-embedded-resource': 'no prompts',
    'prompts-get-with-image': 'no prompts',
    'input-required-result-non-tool-request': 'calls prompts/get: no prompts',
    caching: 'its prompts/list, resources/list and resources/templates/list checks (no prompts, no resources); its tools/list and aggregate checks pass',
};

interface Check {
    id: string;
    status: string;
    errorMessage?: string;
}

let server: HttpServer;
let out: string;
let results: Map<string, Check[]>;

/** Each scenario's checks, from the result folders (`server-<scenario>-<timestamp>/checks.json`). */
function readResults(dir: string): Map<string, Check[]> {
    const byScenario = new Map<string, Check[]>();
    for (const entry of readdirSync(dir)) {
        const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
        if (scenario) {
            byScenario.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
        }
    }
    return byScenario;
}

describe('the official conformance suite (2026-07-28 and tasks-*)', { timeout: 300_000 }, () => {
    before(async () => {
        server = await startHttpServer(['--conformance-fixtures']);
        out = mkdtempSync(join(tmpdir(), 'mcp-tasks-conformance-'));
        const child = spawn(process.execPath, [CONFORMANCE, 'server', '--url', server.url, '--requirements', '2026-07-28', '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', chunk => (output += String(chunk)));
        child.stderr.on('data', chunk => (output += String(chunk)));
        const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
        await once(child, 'exit');
        clearTimeout(timer);
        results = readResults(out);
        assert.ok(results.size > 0, `the suite wrote no results:\n${output}`);
    });

    after(async () => {
        await server?.stop();
        if (out) {
            rmSync(out, { recursive: true, force: true });
        }
    });

    it('ran every tasks-* scenario and the 2026-07-28 server scenarios', () => {
        const tasks = [...results.keys()].filter(name => name.startsWith('tasks-'));
        assert.equal(tasks.length, 10, `tasks scenarios run: ${tasks.join(', ')}`);
        for (const name of ['server-stateless', 'tools-call-simple-text', 'input-required-result-tampered-state', 'http-header-validation', 'caching']) {
            assert.ok(results.has(name), `${name} was not run`);
        }
    });

    it('passes every scenario but those for features the server does not offer', () => {
        const failing = [...results]
            .filter(([name, checks]) => !(name in NOT_OFFERED) && checks.some(check => check.status === 'FAILURE'))
            .map(([name, checks]) => `${name}: ${checks.filter(c => c.status === 'FAILURE').map(c => `${c.id}: ${c.errorMessage ?? ''}`).join('; ')}`);
        assert.deepEqual(failing, []);
    });

    it('draws no warning but for resources, which it does not offer', () => {
        const warned = [...results]
            .filter(([name]) => !(name in NOT_OFFERED) && name !== 'sep-2164-resource-not-found')
            .flatMap(([name, checks]) => checks.filter(check => check.status === 'WARNING').map(check => `${name}: ${check.id}: ${check.errorMessage ?? ''}`));
        assert.deepEqual(warned, []);
    });

    it('fails the scenarios it does not offer only for the missing method', () => {
        for (const [name, why] of Object.entries(NOT_OFFERED)) {
            const checks = results.get(name);
            assert.ok(checks, `${name} (${why}) was not run`);
            for (const check of checks.filter(c => c.status === 'FAILURE')) {
                assert.match(check.errorMessage ?? '', /Method not found|-32601/, `${name}: ${check.id} failed for another reason than "${why}"`);
            }
        }
    });
});
