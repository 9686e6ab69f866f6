import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { defaultTools } from '../../../server/src/demo/tools.js';
import { connect, type Connected } from '../../support/helpers.js';

// What a model sees of each tool: enough to pick it, call it right, and know it runs as a task.

/** How each task support must be stated in a description. */
const SAYS_TASK_SUPPORT: Record<string, RegExp> = {
    forbidden: /\bno task\b|\bnot (as )?a task\b|without a task/i,
    optional: /\btask\b[^.]*\b(otherwise|or inline|either way)\b/i,
    required: /\b(must be run|runs|always runs) as a (background )?task\b/i,
};

/** JSON-schema properties without a description, as dotted paths (nested objects and array items included). */
function undescribed(schema: Record<string, unknown>, path = ''): string[] {
    const missing: string[] = [];
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, property] of Object.entries(properties)) {
        const here = path ? `${path}.${name}` : name;
        if (typeof property.description !== 'string' || property.description.trim().length < 10) {
            missing.push(here);
        }
        missing.push(...undescribed(property, here));
        if (property.items && typeof property.items === 'object') {
            missing.push(...undescribed(property.items as Record<string, unknown>, `${here}[]`));
        }
    }
    return missing;
}

describe('tool metadata in tools/list', () => {
    let c: Connected;
    let tools: Tool[];
    const byName = (name: string) => tools.find(tool => tool.name === name);

    before(async () => {
        c = await connect('stdio', undefined);
        ({ tools } = await c.client.listTools());
    });
    after(async () => {
        await c?.close();
    });

    it('lists the six core tools', () => {
        for (const name of ['greet', 'slow_compute', 'failing_job', 'confirm_delete', 'write_haiku', 'external_job']) {
            assert.ok(byName(name), `${name} is listed`);
        }
    });

    it("words every description so a user can follow it too: VS Code's approval dialog shows it as is", () => {
        // No protocol method, status, field or mechanism name (the dialog's reader is the user, not the protocol).
        const terms = /\btasks\/\w+|\binput_required\b|\belicitation\b|\bsampling\b|\bstructured ?content\b|\bisError\b|JSON-?RPC|-32\d{3}/i;
        const found = tools.filter(tool => terms.test(tool.description ?? '')).map(tool => `${tool.name}: ${terms.exec(tool.description ?? '')![0]}`);
        assert.deepEqual(found, []);
    });

    it('gives every tool a title, also as annotations.title', () => {
        for (const tool of tools) {
            assert.ok(tool.title && tool.title.trim().length >= 5, `${tool.name} has a title`);
            assert.equal(tool.annotations?.title, tool.title, `${tool.name}: annotations.title matches`);
        }
    });

    it('gives every tool a description of at least 80 characters that says whether it runs as a task', () => {
        for (const tool of tools) {
            const description = tool.description ?? '';
            assert.ok(description.length >= 80, `${tool.name}: description is ${description.length} chars: ${description}`);
            const support = tool.execution?.taskSupport ?? 'forbidden';
            assert.match(description, SAYS_TASK_SUPPORT[support]!, `${tool.name} (${support}) says how it runs: ${description}`);
        }
    });

    it('describes every input property (and output property)', () => {
        for (const tool of tools) {
            assert.equal(tool.inputSchema.type, 'object', tool.name);
            assert.deepEqual(undescribed(tool.inputSchema), [], `${tool.name}: input properties without a description`);
            if (tool.outputSchema) {
                assert.deepEqual(undescribed(tool.outputSchema), [], `${tool.name}: output properties without a description`);
            }
        }
    });

    it('states the read-only and open-world hints for every tool, and destructiveness for every writer', () => {
        for (const tool of tools) {
            const hints = tool.annotations ?? {};
            assert.equal(typeof hints.readOnlyHint, 'boolean', `${tool.name}: readOnlyHint`);
            assert.equal(typeof hints.openWorldHint, 'boolean', `${tool.name}: openWorldHint`);
            if (hints.readOnlyHint === false) {
                assert.equal(typeof hints.destructiveHint, 'boolean', `${tool.name}: destructiveHint (it is not read-only)`);
            }
        }
        assert.equal(byName('greet')?.annotations?.readOnlyHint, true);
        assert.equal(byName('confirm_delete')?.annotations?.destructiveHint, true);
        assert.equal(byName('confirm_delete')?.annotations?.readOnlyHint, false);
        assert.equal(byName('external_job')?.annotations?.openWorldHint, true);
    });

    it('marks every demo tool as a demonstration, first, and says it is not for real requests', () => {
        const demos = ['greet', 'slow_compute', 'failing_job', 'confirm_delete', 'write_haiku', 'external_job', 'deploy'];
        for (const name of demos) {
            const tool = byName(name);
            assert.ok(tool, `${name} is listed`);
            assert.match(tool.title ?? '', /^Demo: /, `${name}: title marks it as a demo`);
            assert.match(tool.description ?? '', /^Demonstration tool: /, `${name}: description says first that it is a demonstration`);
            assert.match(tool.description ?? '', /\b(do not|never) (use|call) it\b[^.]*\breal\b/i, `${name}: description says it is not for real requests`);
        }
        // deploy_step is hidden from tools/list: read its text where it is defined.
        const step = defaultTools().find(tool => tool.name === 'deploy_step')!;
        assert.match(step.title, /^Demo: /);
        assert.match(step.description, /^Demonstration tool: [^.]*nothing\b[^]*never for real requests/);
        assert.ok(defaultTools().every(tool => tool.demo === true), 'every built-in tool is flagged demo');
        assert.match(byName('confirm_delete')!.description!, /deletes nothing/);
        assert.match(byName('deploy')!.description!, /deploys nothing/);
    });

    it('keeps none of the old phrases that invited real requests', () => {
        for (const tool of tools) {
            const text = `${tool.title} ${tool.description}`;
            assert.doesNotMatch(text, /Use it when the user/i, `${tool.name}: ${text}`);
            assert.doesNotMatch(text, /Delete a file \(asks first\)|Deploy an application|Run an external job/, `${tool.name}: ${text}`);
        }
    });

    it('words every description so that it reads right to a person in VS Code\'s approval dialog too', () => {
        // VS Code renders a tool's description as Markdown there: an <angle-bracketed> word is dropped as
        // HTML, and wire keys such as _meta["…"] mean nothing to the person asked to approve.
        for (const tool of tools) {
            const description = tool.description ?? '';
            assert.doesNotMatch(description, /<[A-Za-z][^>]*>/, `${tool.name}: ${description}`);
            assert.doesNotMatch(description, /_meta\b|io\.modelcontextprotocol\/|dev\.mcp-tasks\//, `${tool.name}: ${description}`);
        }
    });

    it('has every start_<tool> of a demo say first that it starts a demonstration', () => {
        for (const tool of tools.filter(t => t.name.startsWith('start_'))) {
            assert.match(tool.title ?? '', /Demo: /, `${tool.name}: title`);
            assert.match(tool.description ?? '', /^Demonstration: \w+ is a demo tool[^.]*real requests/, `${tool.name}: ${tool.description}`);
        }
    });

    it('declares an outputSchema for the tools that return structured content', () => {
        for (const name of ['slow_compute', 'deploy']) {
            const tool = byName(name);
            if (name === 'deploy' && !tool) {
                continue; // added separately; checked once it is listed
            }
            assert.equal(tool?.outputSchema?.type, 'object', `${name} has an outputSchema`);
            // Plain calls may be deferred (--defer-after is on by default): the schema is the tool's own or the deferral's answer.
            const [own, deferred] = (tool?.outputSchema as { anyOf?: { properties?: Record<string, unknown>; required?: string[] }[] }).anyOf ?? [];
            assert.ok(Object.keys(own?.properties ?? {}).length > 0, `${name}: its own outputSchema has properties`);
            assert.deepEqual(deferred?.required, ['taskId', 'status', 'next'], `${name}: or the deferral's answer`);
        }
    });
});
