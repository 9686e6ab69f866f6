/**
 * `npm run soak -- [--minutes N] [--idle-minutes N] [--every SECONDS] [--ttl SECONDS] [--json FILE]`: the soak of
 * test/soak/soak.ts against the built server (run `npm run build` first), on loopback only, with a
 * throw-away redis-server. Prints figures as it goes (with each server's live heap, read after a full
 * collection forced once per line) and a summary at the end; exits 1 if a task
 * was lost, doubled or wrong, or a process or file was left behind.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runSoak, type SoakSummary } from '../test/soak/soak.js';

const MAX_MINUTES = 24 * 60;

function main(): Promise<number> {
    const { values } = parseArgs({
        options: {
            minutes: { type: 'string', default: '20' },
            'idle-minutes': { type: 'string', default: '3' },
            every: { type: 'string', default: '30' },
            ttl: { type: 'string' },
            json: { type: 'string' },
        },
    });
    const minutes = Number(values.minutes);
    const idle = Number(values['idle-minutes']);
    const every = Number(values.every);
    const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
    if (!(minutes > 0 && minutes <= MAX_MINUTES) || !(idle >= 0 && idle <= 60) || !(every >= 1) || (ttl !== undefined && !(ttl >= 1))) {
        process.stderr.write(`soak: --minutes takes 0 < N <= ${MAX_MINUTES}, --idle-minutes 0 to 60, --every and --ttl at least 1 (seconds)\n`);
        return Promise.resolve(2);
    }
    return runSoak({ seconds: minutes * 60, idleSeconds: idle * 60, everySeconds: every, ttlSeconds: ttl, collect: true, print: line => process.stdout.write(`${line}\n`) }).then(summary => {
        if (values.json) {
            writeFileSync(values.json, JSON.stringify(summary, null, 2));
        }
        process.stdout.write(summarize(summary));
        return faults(summary).length ? 1 : 0;
    });
}

export function faults(summary: SoakSummary): string[] {
    const found: string[] = [];
    for (const [name, site] of Object.entries(summary.sites)) {
        for (const outcome of ['lost', 'doubled', 'wrong'] as const) {
            if (site.counts[outcome] > 0) {
                found.push(`${name}: ${site.counts[outcome]} ${outcome} (${site.problems.join('; ')})`);
            }
        }
    }
    if (summary.leftoverProcesses.length) {
        found.push(`processes left: ${summary.leftoverProcesses.join(', ')}`);
    }
    if (summary.leftoverFiles.length) {
        found.push(`files left: ${summary.leftoverFiles.join(', ')}`);
    }
    return found;
}

function summarize(summary: SoakSummary): string {
    const MB = 1024 * 1024;
    const lines = [`\n[soak] ${summary.seconds} s of load`];
    for (const [name, site] of Object.entries(summary.sites)) {
        const rss = (v?: number) => (v === undefined ? '-' : `${(v / MB).toFixed(1)} MB`);
        lines.push(
            `  ${name}: ${site.tasks} tasks ${JSON.stringify(site.counts)}; ${site.errors.length} failed request(s)` +
                `; rss ${rss(site.first?.rss)} at the start, peak ${rss(site.peakRss)}, ${rss(site.idle?.rss)} after idling; live heap after a full GC ${rss(site.collectedHeap)}` +
                `; fds ${site.first?.fds ?? '-'} -> ${site.idle?.fds ?? '-'}`,
        );
        site.errors.slice(0, 5).forEach(e => lines.push(`    error: ${e}`));
    }
    summary.restarts.forEach(r => lines.push(`  replica-b restarted ${r}`));
    const found = faults(summary);
    lines.push(found.length ? `  FAULTS:\n    ${found.join('\n    ')}` : '  no task lost, doubled or wrong; no process or file left');
    return `${lines.join('\n')}\n`;
}

main().then(
    code => process.exit(code),
    err => {
        process.stderr.write(`soak: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
    },
);
