import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { DownstreamSpec } from '../../../../server/src/gateway/config.js';
import { Downstream } from '../../../../server/src/gateway/downstream.js';
import { wrappedTools } from '../../../../server/src/gateway/wrappedTools.js';
import { silentLogger, type Logger } from '../../../../server/src/util/log.js';
import { ManualClock } from '../../../support/manualClock.js';
import { BoundedResults } from '../../../../server/src/gateway/boundedResults.js';

const RESULTS = new BoundedResults(new ManualClock());

// How the wrapped tools are named and what task support they get (no processes: the downstreams
// are never started, their tool lists are set as tools/list would).

function downstream(name: string, tools: Partial<Tool>[], sync: string[] = []): Downstream {
    const spec: DownstreamSpec = { kind: 'stdio', name, command: 'none', args: [], sync };
    const result = new Downstream(spec, silentLogger, new ManualClock(), () => undefined);
    result.tools = tools.map(tool => ({ inputSchema: { type: 'object' }, ...tool }) as Tool);
    return result;
}

const names = (tools: { name: string }[]) => tools.map(tool => tool.name);

describe('wrapped tool names and task support', () => {
    it('keeps the names of a single server', () => {
        assert.deepEqual(names(wrappedTools([downstream('a', [{ name: 'search' }, { name: 'echo' }])], () => false, silentLogger, RESULTS)), ['search', 'echo']);
    });

    it('with several servers, prefixes only the names more than one offers, in each of them', () => {
        const tools = wrappedTools([downstream('git', [{ name: 'status' }, { name: 'log' }]), downstream('svn', [{ name: 'status' }, { name: 'blame' }])], () => false, silentLogger, RESULTS);
        assert.deepEqual(names(tools), ['git_status', 'log', 'svn_status', 'blame']);
    });

    it('prefixes a name that is ours already, and leaves out, with a warning, one still taken', () => {
        const warnings: string[] = [];
        const log: Logger = { ...silentLogger, warn: message => void warnings.push(message) };
        const taken = (name: string) => name === 'get_task' || name === 'a_get_task' || name.startsWith('start_');
        assert.deepEqual(names(wrappedTools([downstream('a', [{ name: 'get_task' }, { name: 'start_job' }])], taken, log, RESULTS)), ['a_start_job']);
        assert.match(warnings.join('\n'), /tool get_task left out: the name a_get_task is taken/);
    });

    it('serves tools as optional task tools; required stays required; sync stays plain', () => {
        const tools = wrappedTools(
            [downstream('a', [{ name: 'long' }, { name: 'quick' }, { name: 'job', execution: { taskSupport: 'required' } }, { name: 'opt', execution: { taskSupport: 'optional' } }], ['quick'])],
            () => false,
            silentLogger,
            RESULTS,
        );
        assert.deepEqual(
            tools.map(tool => [tool.name, tool.taskSupport]),
            [
                ['long', 'optional'],
                ['quick', 'forbidden'],
                ['job', 'required'],
                ['opt', 'optional'],
            ],
        );
    });

    it('shows the downstream schemas and hints as they are', () => {
        const inputSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
        const outputSchema = { type: 'object', properties: { n: { type: 'number' } } };
        const [tool] = wrappedTools([downstream('a', [{ name: 's', title: 'Search', inputSchema: inputSchema as Tool['inputSchema'], outputSchema: outputSchema as Tool['outputSchema'], annotations: { readOnlyHint: true } }])], () => false, silentLogger, RESULTS);
        assert.equal(tool!.jsonInputSchema, inputSchema);
        assert.equal(tool!.jsonOutputSchema, outputSchema);
        assert.deepEqual(tool!.annotations, { readOnlyHint: true });
        assert.equal(tool!.title, 'Search');
    });
});
