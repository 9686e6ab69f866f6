// The merge of the extension's command sources: order, trust, confinement to the workspace folders,
// and one bad entry never costing the others (the server's own parser decides what is valid).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCommandsFile } from '@mcp-tasks/server/commandSpec';
import { commandsFileText, entriesOfFile, mergeCommands, type CommandSource } from '../../../../extension/commandTools/commandSources';

const WS = '/work/ws';
const OTHER = '/work/other';
const tool = (name: string, extra: object = {}) => ({ name, description: `Runs ${name}.`, command: ['echo', name], ...extra });
const user = (entries: unknown): CommandSource => ({ label: 'user', fromWorkspace: false, base: WS, entries });
const workspace = (entries: unknown): CommandSource => ({ label: 'workspace', fromWorkspace: true, base: WS, entries });
const file = (folder: string, entries: unknown): CommandSource => ({ label: join(folder, '.vscode/mcp-tasks.json'), fromWorkspace: true, base: folder, entries });
const names = (merged: ReturnType<typeof mergeCommands>) => merged.content.tools.map(t => t.name);

describe('command sources', () => {
    it('merges user, workspace and folder-file entries; a later one of the same name wins, saying so', () => {
        const merged = mergeCommands([user([tool('build'), tool('lint')]), workspace([tool('test')]), file(WS, [tool('build', { command: ['make'] })])], [WS], true);
        assert.deepEqual(names(merged), ['build', 'lint', 'test']);
        assert.deepEqual(merged.content.tools[0]!.command, ['make']);
        assert.equal(merged.origins.get('build'), join(WS, '.vscode/mcp-tasks.json'));
        assert.equal(merged.origins.get('lint'), 'user');
        assert.match(merged.problems.join('\n'), /build replaces the command of that name from user/);
    });

    it('an untrusted workspace contributes nothing; user settings still count', () => {
        const merged = mergeCommands([user([tool('mine')]), workspace([tool('theirs')]), file(WS, [tool('also_theirs')])], [WS], false);
        assert.deepEqual(names(merged), ['mine']);
        assert.match(merged.problems.join('\n'), /workspace: 1 command\(s\) wait for workspace trust/);
        assert.match(merged.problems.join('\n'), /mcp-tasks\.json: 1 command\(s\) wait for workspace trust/);
    });

    it('resolves cwd against the entry’s folder and keeps it inside the workspace folders', () => {
        const merged = mergeCommands([file(OTHER, [tool('here'), tool('sub', { cwd: 'pkg' }), tool('up', { cwd: '..' }), tool('abs', { cwd: '/etc' }), tool('ws', { cwd: WS })])], [WS, OTHER], true);
        assert.deepEqual(names(merged), ['here', 'sub', 'ws']);
        assert.deepEqual(
            merged.content.tools.map(t => t.cwd),
            [OTHER, join(OTHER, 'pkg'), WS],
        );
        assert.equal(merged.problems.filter(p => /cwd: .* is outside the declared roots/.test(p)).length, 2);
        assert.deepEqual(merged.content.roots, [WS, OTHER]);
    });

    it('with no folder open, no command is served (there is nowhere it may run)', () => {
        const merged = mergeCommands([user([tool('mine')])], [], true);
        assert.deepEqual(names(merged), []);
        assert.match(merged.problems[0]!, /need an open workspace folder/);
    });

    it('a bad entry is left out with its index and field; the others still serve', () => {
        const merged = mergeCommands(
            [
                user([
                    tool('good'),
                    { name: 'bad', description: 'x', command: ['echo', 'a{b}c'] },
                    tool('no way'),
                    'text',
                    tool('also_good', { parameters: { n: { type: 'date', description: 'd' } } }),
                    tool('typo', { timeout: 5 }),
                ]),
            ],
            [WS],
            true,
        );
        assert.deepEqual(names(merged), ['good']);
        const text = merged.problems.join('\n');
        assert.match(text, /user: \[1\] \(bad\): command\[1\]: "a\{b\}c": a \{parameter\} must be a whole argv element or end one/);
        assert.match(text, /user: \[2\]: name: must match/);
        assert.match(text, /user: \[3\]: must be an object/);
        assert.match(text, /user: \[4\] \(also_good\): parameters\.n: type/);
        assert.match(text, /user: \[5\] \(typo\): unknown key timeout; did you mean timeoutMs\?/);
        assert.match(mergeCommands([user({ tools: [] })], [WS], true).problems[0]!, /must be an array/);
        // Each is one the user is told of, with where it is declared.
        assert.equal(merged.wrong.length, 5);
        assert.ok(merged.wrong.every(problem => problem.source === 'user'));
        assert.equal(mergeCommands([user({ tools: [] })], [WS], true).wrong.length, 1);
    });

    it('what waits for trust, needs a folder or replaces a name is logged, not told as a mistake', () => {
        assert.deepEqual(mergeCommands([workspace([tool('held')])], [WS], false).wrong, []);
        assert.deepEqual(mergeCommands([user([tool('early')])], [], true).wrong, []);
        const replaced = mergeCommands([user([tool('same')]), file(WS, [tool('same')])], [WS], true);
        assert.equal(replaced.problems.length, 1);
        assert.deepEqual(replaced.wrong, []);
    });

    it('writes a file the server accepts as it is, wherever the file lives', () => {
        const merged = mergeCommands([file(WS, [tool('sub', { cwd: 'pkg', parameters: { x: { type: 'path', description: 'a file' } }, command: ['cat', '{x}'] })])], [WS], true);
        const specs = parseCommandsFile(commandsFileText(merged.content), '/somewhere/else/commands.json');
        assert.equal(specs[0]!.cwd, join(WS, 'pkg'));
        assert.deepEqual(specs[0]!.command, ['cat', '{x}']);
    });

    it('reads a workspace file as the server file’s shape, with clear errors', () => {
        assert.deepEqual(entriesOfFile('{"tools": [{"name": "a"}]}', 'f'), [{ name: 'a' }]);
        assert.throws(() => entriesOfFile('{"tools": [', 'f.json'), /^Error: f\.json: not valid JSON/);
        assert.throws(() => entriesOfFile('[]', 'f.json'), /f\.json: expected \{"tools": \[\.\.\.\]\}/);
        assert.throws(() => entriesOfFile('{}', 'f.json'), /f\.json: expected \{"tools": \[\.\.\.\]\}/);
        // A file that only wraps servers declares no commands.
        assert.deepEqual(entriesOfFile('{"wrap": {}}', 'f'), []);
    });
});
