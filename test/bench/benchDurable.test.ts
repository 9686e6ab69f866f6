// The durable-store experiment (issue 43): the `sqlite` kind is ours on a data folder of its own for
// each start, gone once the server has exited; its table holds task creation to 0.5× and tasks/get
// to 0.8× of the in-memory store's rate in the same run, over both transports, and gives no
// verdict without the figures.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { durableLines, durableRows } from '../../bench/lib/durableRows.js';
import { settingsFor } from '../../bench/lib/settings.js';
import { startStdio, type Programs } from '../../bench/lib/targets.js';
import type { Results } from '../../bench/lib/report.js';
import { SERVER_JS } from '../support/helpers.js';

const rows = durableRows(settingsFor(true, 'node-http'));

/** One round of each store, every figure of the run set to the same value per store. */
function run(sqlite: number, memory: number): Results {
    const metrics = (value: number) => Object.fromEntries(rows.flatMap(row => [row.key, ...row.ratios.map(([, key]) => key)]).map(key => [key, value]));
    return new Map([['durable', new Map([['sqlite', [metrics(sqlite)]], ['ours', [metrics(memory)]]])]]) as Results;
}

describe('durable store rows', () => {
    it('hold creation to 0.5× and tasks/get to 0.8× of the memory store’s rate, over HTTP and stdio alike', () => {
        const goals = rows.filter(row => row.least).map(row => `${row.transport} ${row.key} ${row.least!.ratio}`);
        assert.deepEqual(goals, ['http createRate 0.5', 'http getRate 0.8', 'stdio stdioCreateRate 0.5', 'stdio stdioGetRate 0.8']);
        const met = (sqlite: number) => durableLines(run(sqlite, 1000), rows).filter(line => line.goal).map(line => line.met);
        assert.deepEqual(met(800), ['yes', 'yes', 'yes', 'yes']);
        assert.deepEqual(met(500), ['yes', '**no**', 'yes', '**no**']);
        assert.deepEqual(met(499), ['**no**', '**no**', '**no**', '**no**']);
    });

    it('shows each overhead as SQLite ÷ memory, and no verdict without the figures', () => {
        const [sequential] = durableLines(run(300, 200), rows);
        assert.equal(sequential!.overhead, 'p50 1.50×, p99 1.50×');
        assert.ok(durableLines(new Map(), rows).every(line => line.met === '' || line.met === '?'));
    });
});

describe('the sqlite kind', () => {
    it('starts ours on a fresh data folder of its own for each start, removed once the server has exited', async () => {
        const programs = { ours: SERVER_JS } as Programs;
        const folders: string[] = [];
        for (let start = 0; start < 2; start++) {
            const client = startStdio('sqlite', programs);
            try {
                await client.initialize();
                const args = client.proc.spawnargs;
                assert.equal(args[args.indexOf('--store') + 1], 'sqlite');
                const folder = args[args.indexOf('--data-dir') + 1]!;
                assert.ok(existsSync(join(folder, 'tasks.db')), `${folder} has no tasks.db`);
                folders.push(folder);
            } finally {
                await client.close();
            }
            assert.equal(existsSync(folders[start]!), false, `${folders[start]} left behind`);
        }
        assert.notEqual(folders[0], folders[1]);
    });
});
