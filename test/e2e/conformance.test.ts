import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONFORMANCE, readResults, type Check } from '../support/conformanceTool.js';
import { startHttpServer, type HttpServer } from '../support/helpers.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency)
// in server mode, against the real server with its fixtures, for both revisions the server
// speaks: every scenario 2025-11-25 requires (initialize, sessions) and every one 2026-07-28
// requires (stateless), which includes the ten tasks-* scenarios of the tasks extension. The
// suite has no stdio mode (it takes only --url), so this is HTTP only.

/** A scenario for a feature this server does not offer: why, and how it must fail (nothing else may fail it). */
interface NotOffered {
    why: string;
    /** Every failing check's message matches this (default: the missing method). */
    failsWith?: RegExp;
    /** The scenario finds nothing to check (only INFO), and must go on finding nothing. */
    checksNothing?: RegExp;
}

const METHOD_NOT_FOUND = /Method not found|-32601/;

const NO_RESOURCES_OR_PROMPTS: Record<string, NotOffered> = {
    'completion-complete': { why: 'no prompts or resource templates, so nothing to complete (completion/complete)' },
    'resources-list': { why: 'no resources' },
    'resources-read-text': { why: 'no resources' },
    'resources-read-binary': { why: 'no resources' },
    'resources-templates-read': { why: 'no resources' },
    'prompts-list': { why: 'no prompts' },
    'prompts-get-simple': { why: 'no prompts' },
    'prompts-get-with-args': { why: 'no prompts' },
    'prompts-get-embedded-resource': { why: 'no prompts' },
    'prompts-get-with-image': { why: 'no prompts' },
};

/** Per revision, the scenarios for features this server does not offer. Everything else must pass. */
const NOT_OFFERED: Record<string, Record<string, NotOffered>> = {
    '2026-07-28': {
        ...NO_RESOURCES_OR_PROMPTS,
        'input-required-result-non-tool-request': { why: 'calls prompts/get: no prompts' },
        caching: { why: 'its prompts/list, resources/list and resources/templates/list checks (no prompts, no resources); its tools/list and aggregate checks pass' },
    },
    '2025-11-25': {
        ...NO_RESOURCES_OR_PROMPTS,
        'resources-subscribe': { why: 'no resources (resources/subscribe)' },
        'resources-unsubscribe': { why: 'no resources (it subscribes first)' },
        'logging-set-level': { why: 'no logging (logging/setLevel): logs go to stderr and the log file' },
        'tools-call-with-logging': { why: 'sets the log level first (logging/setLevel): no logging' },
    },
};

let server: HttpServer;
let out: string;

/** Runs the suite for one revision; the scenarios it announced, and each one's checks. */
async function runSuite(revision: string): Promise<{ announced: number; results: Map<string, Check[]> }> {
    const dir = join(out, revision);
    const child = spawn(process.execPath, [CONFORMANCE, 'server', '--url', server.url, '--requirements', revision, '-o', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', chunk => (output += String(chunk)));
    child.stderr.on('data', chunk => (output += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    await once(child, 'exit');
    clearTimeout(timer);
    const results = readResults(dir);
    assert.ok(results.size > 0, `the suite wrote no results for ${revision}:\n${output}`);
    const announced = Number(/Running requirements \S+ \((\d+) scenarios\)/.exec(output)?.[1]);
    return { announced, results };
}

/** Checks that ran something: the suite logs requests and responses as INFO. */
function counted(checks: Check[]): Check[] {
    return checks.filter(check => check.status !== 'INFO');
}

const runs = new Map<string, { announced: number; results: Map<string, Check[]> }>();

describe('the official conformance suite, both revisions (2025-11-25, and 2026-07-28 with tasks-*)', { timeout: 600_000 }, () => {
    before(async () => {
        server = await startHttpServer(['--conformance-fixtures']);
        out = mkdtempSync(join(tmpdir(), 'mcp-tasks-conformance-'));
        mkdirSync(join(out, '2025-11-25'));
        mkdirSync(join(out, '2026-07-28'));
        for (const revision of Object.keys(NOT_OFFERED)) {
            runs.set(revision, await runSuite(revision));
        }
    });

    after(async () => {
        await server?.stop();
        if (out) {
            rmSync(out, { recursive: true, force: true });
        }
    });

    it('ran every scenario each revision requires, every tasks-* one among them', () => {
        for (const [revision, { announced, results }] of runs) {
            assert.ok(announced > 0, `${revision}: the suite said how many scenarios it runs`);
            assert.equal(results.size, announced, `${revision}: every announced scenario wrote results`);
        }
        const modern = runs.get('2026-07-28')!.results;
        const tasks = [...modern.keys()].filter(name => name.startsWith('tasks-'));
        assert.equal(tasks.length, 10, `tasks scenarios run: ${tasks.join(', ')}`);
        for (const name of ['server-stateless', 'tools-call-simple-text', 'input-required-result-tampered-state', 'http-header-validation', 'caching']) {
            assert.ok(modern.has(name), `${name} was not run`);
        }
        const legacy = runs.get('2025-11-25')!.results;
        for (const name of ['server-initialize', 'tools-call-sampling', 'tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums', 'server-sse-polling']) {
            assert.ok(legacy.has(name), `${name} was not run`);
        }
    });

    it('passes every scenario but those for features the server does not offer, each with at least one check run', () => {
        const wrong: string[] = [];
        for (const [revision, { results }] of runs) {
            for (const [name, checks] of results) {
                if (name in NOT_OFFERED[revision]!) {
                    continue;
                }
                const failing = checks.filter(check => check.status === 'FAILURE');
                if (failing.length > 0) {
                    wrong.push(`${revision} ${name}: ${failing.map(c => `${c.id}: ${c.errorMessage ?? ''}`).join('; ')}`);
                } else if (counted(checks).length === 0) {
                    wrong.push(`${revision} ${name}: no check ran (${checks.map(c => c.description ?? c.id).join('; ')})`);
                }
            }
        }
        assert.deepEqual(wrong, []);
    });

    it('closes a stream mid-call and resumes it on a GET with Last-Event-ID (server-sse-polling, SEP-1699)', () => {
        const checks = runs.get('2025-11-25')!.results.get('server-sse-polling')!;
        assert.deepEqual(
            counted(checks)
                .map(check => `${check.id}: ${check.status}`)
                .sort(),
            ['server-sse-disconnect-resume: SUCCESS', 'server-sse-priming-event: SUCCESS', 'server-sse-retry-field: SUCCESS'],
        );
    });

    it('draws no warning but for resources, which it does not offer', () => {
        const warned = [...runs].flatMap(([revision, { results }]) =>
            [...results]
                .filter(([name]) => !(name in NOT_OFFERED[revision]!) && name !== 'sep-2164-resource-not-found')
                .flatMap(([name, checks]) => checks.filter(check => check.status === 'WARNING').map(check => `${revision} ${name}: ${check.id}: ${check.errorMessage ?? ''}`)),
        );
        assert.deepEqual(warned, []);
    });

    it('fails the scenarios for what it does not offer only for that reason', () => {
        for (const [revision, notOffered] of Object.entries(NOT_OFFERED)) {
            const { results } = runs.get(revision)!;
            for (const [name, { why, failsWith, checksNothing }] of Object.entries(notOffered)) {
                const checks = results.get(name);
                assert.ok(checks, `${revision} ${name} (${why}) was not run`);
                if (checksNothing) {
                    assert.deepEqual(counted(checks).map(c => `${c.id}: ${c.status}`), [], `${revision} ${name}: it now checks something (${why})`);
                    assert.ok(
                        checks.some(c => checksNothing.test(JSON.stringify(c.details ?? {}))),
                        `${revision} ${name}: not for the known reason: ${JSON.stringify(checks).slice(0, 500)}`,
                    );
                    continue;
                }
                const failing = checks.filter(c => c.status === 'FAILURE');
                assert.ok(failing.length > 0, `${revision} ${name} passes now: take it off the list of what is not offered (${why})`);
                for (const check of failing) {
                    assert.match(check.errorMessage ?? '', failsWith ?? METHOD_NOT_FOUND, `${revision} ${name}: ${check.id} failed for another reason than "${why}"`);
                }
            }
        }
    });
});
