/** Secrets never reach a command's log, tail or progress, wherever the reads of its output fall. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LogGuard } from '../../../../server/src/commands/logGap.js';
import { CommandOutput } from '../../../../server/src/commands/output.js';
import { RunLog } from '../../../../server/src/commands/runLog.js';

/** A log with no limit to speak of. */
const logAt = (path: string) => RunLog.open({ path, guard: new LogGuard() }, 2 ** 40, err => assert.fail(err));
import { secretValues, serverSecretsOf } from '../../../../server/src/commands/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'cmd-redact-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'hunter22-secret';
let n = 0;

/** Feeds `chunks` as reads of one stream; returns the log, and every line reported, joined. */
async function feed(chunks: Buffer[]): Promise<{ log: string; lines: string }> {
    const path = join(dir, `log-${++n}`);
    const lines: string[] = [];
    const output = new CommandOutput(await logAt(path), [SECRET], line => lines.push(line));
    for (const chunk of chunks) {
        output.write('out', chunk);
    }
    await output.end();
    return { log: readFileSync(path, 'utf8'), lines: lines.join('\n') };
}

/** Whether the secret shows, even across the line breaks a cut adds. */
const shows = (text: string) => text.replace(/\n/g, '').includes(SECRET) || text.includes(SECRET.slice(0, 8));

describe('command output redaction', () => {
    it('a secret split by a read in a line longer than a line may be (16 KiB) is still hidden', async () => {
        for (const before of [16 * 1024 - 3, 16 * 1024 + 1, 64 * 1024 - 7]) {
            const line = Buffer.from(`${'x'.repeat(before)}${SECRET} tail\n`);
            // The read ends inside the secret: 5 of its bytes on this side.
            const { log, lines } = await feed([line.subarray(0, before + 5), line.subarray(before + 5)]);
            assert.equal(shows(log), false, `log, read boundary at ${before + 5}`);
            assert.equal(shows(lines), false, `lines, read boundary at ${before + 5}`);
            assert.match(log.replace(/\n/g, ''), /x\*\*\* tail$/);
        }
    });

    it('a secret spread over more than two reads of one line is hidden', async () => {
        const { log } = await feed([Buffer.from('key=hunt'), Buffer.from('er'), Buffer.from('22-sec'), Buffer.from('ret ok\n')]);
        assert.equal(log, 'key=*** ok\n');
    });

    it('the server’s own credentials are hidden though commands never get them', () => {
        const server = serverSecretsOf({ MCP_TASKS_OWNER_TOKEN: 'owner-abc-123', MCP_TASKS_TOKEN: 'tok-one, tok-two', MCP_TASKS_STORE: 'memory', PATH: '/bin' });
        const hidden = secretValues({ PATH: '/bin' }, {}, server);
        for (const value of ['owner-abc-123', 'tok-one', 'tok-two']) {
            assert.ok(hidden.includes(value), value);
        }
        assert.ok(!hidden.includes('memory'));
    });
});
