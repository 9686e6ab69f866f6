// A stdio MCP server as a host starts it, with every line both ways appended to a file: what
// Claude Code and our server said to each other, for a test that cannot put an HTTP tap between
// them. Run as `node stdioTap.mjs LOG -- COMMAND ARGS…`; each line of LOG is `> ` (host to server)
// or `< ` (server to host) and the frame.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [log, dashes, command, ...args] = process.argv.slice(2);
if (!log || dashes !== '--' || !command) {
    process.stderr.write('usage: node stdioTap.mjs LOG -- COMMAND ARGS…\n');
    process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
createInterface({ input: process.stdin }).on('line', line => {
    appendFileSync(log, `> ${line}\n`);
    child.stdin.write(`${line}\n`);
});
process.stdin.on('end', () => child.stdin.end());
createInterface({ input: child.stdout }).on('line', line => {
    appendFileSync(log, `< ${line}\n`);
    process.stdout.write(`${line}\n`);
});
// The host stopping the tap stops the server as it would have (a SIGTERM, then its own exit).
for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
