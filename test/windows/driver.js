// Runs under Wine as node.exe (a Windows process): starts `node.exe dist/server.js --stdio` with a
// commands file, speaks MCP to it over Windows pipes, and writes what it saw to a JSON file, since
// a node.exe cannot write to the Linux pipe its own stdout is. Arguments: server.js, commands file,
// findings file, the folder to put on the server's PATH (where node.exe and hello.cmd are).
'use strict';
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');

const [serverJs, commandsFile, findingsFile, binDirs] = process.argv.slice(2);
const findings = { platform: process.platform, steps: {}, stderr: '' };
const save = () => writeFileSync(findingsFile, JSON.stringify(findings, null, 2));

const env = { ...process.env };
const pathKey = Object.keys(env).find(k => k.toUpperCase() === 'PATH') ?? 'PATH';
env[pathKey] = `${binDirs};${env[pathKey] ?? ''}`;
const server = spawn(process.execPath, [serverJs, '--stdio', '--commands', commandsFile], { env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
server.stderr.on('data', chunk => (findings.stderr += chunk.toString()));
server.on('exit', (code, signal) => ((findings.serverExit = { code, signal }), save()));
process.on('exit', () => ((findings.driverExit ??= 'the driver ran out of work (a request never answered)'), save()));
// Holds the driver open while it waits; the lane's own timeout is the outer bound.
const deadline = setTimeout(() => ((findings.error ??= 'the driver took more than 150 s'), save(), process.exit(1)), 150_000);

const pending = new Map();
const progress = [];
let nextId = 0;
let buffer = '';
server.stdout.on('data', chunk => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 1);
        if (!line) continue;
        const message = JSON.parse(line);
        if (message.id !== undefined && pending.has(message.id)) {
            pending.get(message.id)(message);
            pending.delete(message.id);
        } else if (message.method === 'notifications/progress') {
            progress.push(message.params);
        }
    }
});

function request(method, params) {
    const id = ++nextId;
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((resolve, reject) => {
        pending.set(id, resolve);
        setTimeout(() => reject(new Error(`${method} had no answer in 60 s`)), 60_000).unref();
    });
}

function alive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

async function until(check, ms) {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) {
        await new Promise(resolve => setTimeout(resolve, 100));
    }
    return check();
}

async function main() {
    const init = await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wine-driver', version: '1' } });
    findings.steps.initialize = init.result ? init.result.protocolVersion : init;
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const list = await request('tools/list', {});
    findings.steps.tools = (list.result?.tools ?? []).map(tool => tool.name);
    save();
    const call = async (name, args) => (await request('tools/call', { name, arguments: args })).result;
    findings.steps.print = await call('print', {});
    findings.steps.fail = await call('fail', {});
    findings.steps.shell = await call('shell', { text: 'a & echo INJECTED' });
    findings.steps.refused = await request('tools/call', { name: 'shell', arguments: { text: '%PATH%' } });
    findings.steps.batch = await call('hello', { name: 'world' });
    save();

    // A command with a child, cancelled as a task: the direct child must end, and the result must say what was seen.
    const started = await request('tools/call', { name: 'tree', arguments: {}, task: {}, _meta: { progressToken: 'tree' } });
    const taskId = started.result?.task?.taskId;
    findings.steps.treeTask = started.result ?? started;
    await until(() => progress.some(p => /^pids /.test(p.message ?? '')), 60_000);
    const pidsLine = progress.find(p => /^pids /.test(p.message ?? ''));
    const pids = pidsLine ? JSON.parse(pidsLine.message.slice(5)) : [];
    findings.steps.pids = pids;
    findings.steps.aliveBefore = pids.map(alive);
    findings.steps.cancel = await request('tasks/cancel', { taskId });
    findings.steps.cancelResult = await request('tasks/result', { taskId });
    findings.steps.task = (await request('tasks/get', { taskId })).result;
    await until(() => !pids.some(alive), 10_000);
    findings.steps.aliveAfter = pids.map(alive);
    save();
}

main()
    .catch(err => (findings.error = String(err && err.stack ? err.stack : err)))
    .finally(() => {
        findings.driverExit = 'done';
        save();
        clearTimeout(deadline);
        server.stdin.end();
        setTimeout(() => (server.kill(), process.exit(0)), 3000).unref();
        server.once('exit', () => process.exit(0));
    });
