// The words a user reads: no protocol terms or internal client names in the runtime bundle or the
// manifest's strings, no placeholder in the manifest's (VS Code fills none there), and every l10n.t
// call, in extension/ and in the built dist/extension.js, fills each {n} placeholder its message has
// (an unfilled one shows as a literal "{0}", as Run Tool's "the server has no tool named {0}" once did).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { JARGON_PATTERNS, protocolTerms as termsIn } from '../../support/userText';

const root = resolve(__dirname, '../../..');
/** The name our own connection gives in initialize (read from the source: its module needs vscode). */
const OWN_CLIENT_NAME = /export const OWN_CLIENT_NAME = '([^']+)'/.exec(readFileSync(join(root, 'extension/owner/ownerConnection.ts'), 'utf8'))![1]!;

function protocolTerms(text: string): string[] {
    return termsIn(text, OWN_CLIENT_NAME);
}

function messagesOf(file: string): [string, string][] {
    const json = JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, string | { message: string }>;
    return Object.entries(json).map(([key, entry]) => [key, typeof entry === 'string' ? entry : entry.message]);
}

function sourceFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
    });
}

interface L10nCall {
    where: string;
    message: string;
    /** How many arguments fill placeholders; undefined when the call passes them in a way we cannot count (a spread, a variable). */
    args: number | undefined;
}

const isText = (node: ts.Node | undefined): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral => !!node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

/**
 * Every `l10n.t(...)` / `vscode.l10n.t(...)` in a file, with its message and the number of arguments it passes.
 * In the built bundle esbuild numbers the names it imports (`l10n2.t`, `vscode9.l10n.t`).
 */
function l10nCalls(path: string): L10nCall[] {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, path.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    const calls: L10nCall[] = [];
    const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && /(^|\.)l10n\d*\.t$/.test(node.expression.getText(source))) {
            const where = `${relative(root, path)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
            const [first, ...rest] = node.arguments;
            if (isText(first)) {
                const spread = rest.some(ts.isSpreadElement);
                calls.push({ where, message: first.text, args: spread ? undefined : rest.length });
            } else if (first && ts.isObjectLiteralExpression(first)) {
                const assigned = (name: string) => first.properties.find(p => p.name?.getText(source) === name);
                const property = (name: string) => {
                    const found = assigned(name);
                    return found && ts.isPropertyAssignment(found) ? found.initializer : found;
                };
                const message = property('message');
                const args = property('args');
                assert.ok(isText(message), `${where}: l10n.t's message must be a string literal (the bundle is extracted from it)`);
                calls.push({ where, message: message.text, args: args === undefined ? 0 : ts.isArrayLiteralExpression(args) && !args.elements.some(ts.isSpreadElement) ? args.elements.length : undefined });
            } else {
                assert.fail(`${where}: l10n.t's first argument must be a string literal or { message, args, comment }`);
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return calls;
}

describe('what a user reads', () => {
    for (const file of ['l10n/bundle.l10n.json', 'package.nls.json']) {
        it(`${file} names no protocol field, method, code or JSON-RPC term`, () => {
            const found = messagesOf(file).flatMap(([key, message]) => protocolTerms(message).map(what => `${key}: ${what}`));
            assert.deepEqual(found, []);
        });
    }

    for (const file of ['l10n/bundle.l10n.json', 'package.nls.json']) {
        it(`${file} says "language model request" and names who, not "sampling" or a bare "client"`, () => {
            const found = messagesOf(file).flatMap(([key, message]) => JARGON_PATTERNS.filter(([pattern]) => pattern.test(message)).map(([, what]) => `${key}: ${what}`));
            assert.deepEqual(found, []);
        });
    }

    it('the jargon scan finds "sampling" and a bare "client", and lets "MCP client" pass', () => {
        const hits = (text: string) => JARGON_PATTERNS.filter(([pattern]) => pattern.test(text)).length;
        assert.equal(hits('MCP Tasks: sampling permissions were reset; clients will be asked again.'), 2);
        assert.equal(hits('Allow always: for this client, until reset'), 1);
        assert.equal(hits('{0} (another MCP client)'), 0);
        assert.notDeepEqual(protocolTerms('slow_compute cancelled — Cancelled by the client'), []);
    });

    it('package.nls.json has no {n} placeholder (VS Code fills none in the manifest: it would show as is)', () => {
        const found = messagesOf('package.nls.json').filter(([, message]) => /\{\d+\}/.test(message)).map(([key]) => key);
        assert.deepEqual(found, []);
    });

    it('the scan finds each kind of protocol term', () => {
        for (const text of ['reported an error (isError)', 'no tasks/get for 30 s', 'tasks/result', 'MCP error -32602: bad', 'a JSON-RPC error', 'status input_required', `Allow ${OWN_CLIENT_NAME} to use the model?`]) {
            assert.notDeepEqual(protocolTerms(text), [], text);
        }
        assert.deepEqual(protocolTerms('Cancelled by you; the tool reported an error after 32 s (-3 °C)'), []);
    });

    const calls = sourceFiles(join(root, 'extension')).flatMap(l10nCalls);

    it('finds the l10n.t calls of extension/', () => {
        assert.ok(calls.length > 150, `only ${calls.length} calls found`);
        assert.ok(calls.some(call => call.message === 'the server has no tool named {0}'));
    });

    function unfilled(calls: L10nCall[]): string[] {
        return calls.flatMap(call => {
            const used = [...call.message.matchAll(/\{(\d+)\}/g)].map(match => Number(match[1]));
            const needed = used.length === 0 ? 0 : Math.max(...used) + 1;
            if (call.args === undefined) {
                return [`${call.where}: "${call.message}" passes its arguments in a way this check cannot count`];
            }
            return call.args === needed ? [] : [`${call.where}: "${call.message}" needs ${needed} argument(s), gets ${call.args}`];
        });
    }

    it('every l10n.t call fills each placeholder of its message, and passes no argument it does not show', () => {
        assert.deepEqual(unfilled(calls), []);
    });

    it('the check finds a call that leaves a placeholder unfilled', () => {
        assert.deepEqual(unfilled([{ where: 'x.ts:1', message: 'the server has no tool named {0}', args: 0 }]), ['x.ts:1: "the server has no tool named {0}" needs 1 argument(s), gets 0']);
    });

    it('so does every l10n.t call in the built dist/extension.js (code bundled from outside extension/ included)', () => {
        const bundle = join(root, 'dist/extension.js');
        assert.ok(existsSync(bundle), 'dist/extension.js is missing: run npm run build first');
        const built = l10nCalls(bundle);
        // The development build keeps the names; a minified one would hide the calls from this scan.
        assert.ok(built.length >= calls.length, `found ${built.length} calls in the bundle, ${calls.length} in extension/: run npm run build (not the production build)`);
        assert.deepEqual(unfilled(built), []);
    });
});
