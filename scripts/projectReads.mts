// What each host reads of the two real projects' failures (test/fixtures/projects, a bug injected
// as the real-project tests inject it), from one server build: VS Code the failed task's
// statusMessage, Claude Code the first content block of the error (a plain call), Codex its
// structuredContent, a text host (Gemini CLI, opencode) all its text; for each, its size and
// whether it names the failing test, its file:line and what differed (✓/✗ in that order).
// Usage: node --import tsx scripts/projectReads.mts path/to/dist/server.js LABEL
// (an older build: `git worktree add ../old COMMIT`, link node_modules, `npm run build` there).
import { cpSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync, symlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [serverJs, label] = process.argv.slice(2);
const ROOT = join(import.meta.dirname, '..');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ba-')));
const projects = [
    { name: 'sprintf-js', bug: ['src/sprintf.js', 'arg = arg.toString(16)\n', 'arg = arg.toString(8)\n'], command: [process.execPath, `${ROOT}/node_modules/mocha/bin/mocha.js`, '--exit', 'test/test.js'], want: ['should return formated strings for simple placeholders', 'test/test.js:26', "'ff' == '377'"] },
    { name: 'minimist', bug: ['index.js', '(/^0x[0-9a-f]+$/i)', '(/^0x[0-9]+$/i)'], command: [process.execPath, `${ROOT}/node_modules/tape/bin/tape`, 'test/**/*.js'], want: ['nums', 'test/num.js:15', "'0xdeadbeef'"] },
];
const tools = projects.map(p => {
    const at = join(dir, p.name);
    cpSync(`${ROOT}/test/fixtures/projects/${p.name}`, at, { recursive: true });
    const [file, from, to] = p.bug as [string, string, string];
    writeFileSync(join(at, file), readFileSync(join(at, file), 'utf8').replace(from, to));
    if (p.name === 'minimist') { mkdirSync(join(at, 'node_modules')); symlinkSync(`${ROOT}/node_modules/tape`, join(at, 'node_modules/tape')); }
    return { name: `test_${p.name.replace('-', '')}`, description: `Runs ${p.name}'s tests.`, command: p.command, cwd: at };
});
writeFileSync(join(dir, 'commands.json'), JSON.stringify({ tools }));
const client = new Client({ name: 'before-after', version: '1' }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverJs!, '--stdio', '--store', 'memory', '--commands', join(dir, 'commands.json')], env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
const has = (text: string, want: string[]) => want.map(w => (text.includes(w) ? '✓' : '✗')).join('');
for (const [i, p] of projects.entries()) {
    const name = tools[i]!.name;
    const plain = await client.callTool({ name, arguments: {} }, CallToolResultSchema, { timeout: 120_000 });
    const first = (plain.content as { type: string; text?: string }[])[0]?.text ?? '';
    const all = (plain.content as { type: string; text?: string }[]).map(c => c.text ?? '').join('\n');
    const structured = plain.structuredContent ? JSON.stringify(plain.structuredContent) : '';
    const created = (await client.request({ method: 'tools/call', params: { name, arguments: {}, task: { ttl: 600000 } } }, (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema)) as { task: { taskId: string } };
    await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema, { timeout: 120_000 });
    const task = (await client.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, (await import('@modelcontextprotocol/sdk/types.js')).GetTaskResultSchema)) as { statusMessage?: string };
    const status = task.statusMessage ?? '';
    console.log(JSON.stringify({ label, project: p.name, vscode: { bytes: Buffer.byteLength(status), names: has(status, p.want) }, claude: { bytes: Buffer.byteLength(first), names: has(first, p.want) }, codex: { bytes: Buffer.byteLength(structured), names: has(structured, p.want) }, text: { bytes: Buffer.byteLength(all), names: has(all, p.want) } }));
    if (process.env.SHOW) console.log(`--- status ---\n${status}\n--- first block ---\n${first.slice(0, 1500)}`);
}
await client.close();
