// Floor for the stdio figures: newline-delimited JSON in, one fixed result per request out (same id).
// Usage: node stdioEcho.js
const RESULT = JSON.stringify({ content: [{ type: 'text', text: 'Hello, World!' }] });

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') {
            const message = JSON.parse(line) as { id?: unknown };
            if (message.id !== undefined) {
                process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${RESULT}}\n`);
            }
        }
        newline = buffered.indexOf('\n');
    }
});
process.stdin.once('end', () => process.exit(0));
