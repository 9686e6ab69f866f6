// `npm run demo`: walks the MCP Tasks v1 protocol step by step with the SDK Client, printing each
// message on the wire and the equivalent curl command, and checking every step's outcome.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StepFailure, type DemoContext } from './demo/context.js';
import { DemoServer } from './demo/server.js';
import { STEPS, STEP_TITLES, type Step } from './demo/steps.js';
import { STEPS_2026 } from './demo/steps2026.js';
import { Terminal } from './demo/ui.js';
import { CurlCommands } from './demo/wire.js';

export { STEP_TITLES };

const HELP = `Usage: npm run demo -- [options]

Walks MCP Tasks v1 in eight steps against the server: connect, a sync call, a task with
progress and polling, a failing required-task tool, cancellation, elicitation and sampling.
Each step prints the messages on the wire (→ to the server, ← its response, ⇠ what it sends
on its own), the curl equivalent, and ✓/✗ for what it checks. Exits 1 if a step fails.

Options:
  --non-interactive   Do not pause between steps; answer the elicitation "yes" automatically.
  --url URL           Use a running server (its /mcp URL) instead of starting dist/server.js.
                      Sends MCP_TASKS_TOKEN, if set, as the bearer token.
  --protocol VERSION  2025-11-25 (the default: the steps above) or 2026-07-28: the same tools
                      over the stateless revision with the Tasks extension (server/discover,
                      server-decided tasks, tasks/get with the result inline, tasks/update).
  --list-steps        Print the step titles and exit.
  -h, --help          Print this help and exit.
`;

/** In --non-interactive runs (CI), a step that hangs fails instead of holding the run. */
const STEP_TIMEOUT_MS = 60_000;

async function main(argv: string[]): Promise<number> {
    const { values } = parseArgs({
        args: argv,
        options: {
            'non-interactive': { type: 'boolean' },
            url: { type: 'string' },
            'list-steps': { type: 'boolean' },
            protocol: { type: 'string', default: '2025-11-25' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        process.stdout.write(HELP);
        return 0;
    }
    if (values.protocol !== '2025-11-25' && values.protocol !== '2026-07-28') {
        process.stderr.write(`demo: --protocol must be 2025-11-25 or 2026-07-28, not ${values.protocol}\n`);
        return 2;
    }
    const stateless = values.protocol === '2026-07-28';
    const steps: readonly Step[] = stateless ? STEPS_2026 : STEPS;
    if (values['list-steps']) {
        steps.forEach((step, i) => process.stdout.write(`${i + 1}. ${step.title}\n`));
        return 0;
    }

    const term = new Terminal(!values['non-interactive']);
    const { paint } = term;
    // A server started here gets a fresh token unless one is given, so no other local process can join.
    const token = process.env.MCP_TASKS_TOKEN || (values.url ? undefined : randomBytes(18).toString('base64url'));
    const server = values.url ? undefined : await DemoServer.start(token!);
    const ctx: DemoContext = { term, curl: new CurlCommands(Boolean(token)), url: values.url ?? server!.url, token, server };
    process.once('SIGINT', () => void Promise.resolve(server?.stop()).finally(() => process.exit(130)));

    term.print(paint.bold(stateless ? 'MCP Tasks walkthrough, protocol 2026-07-28 (Tasks extension)' : 'MCP Tasks v1 walkthrough') + paint.dim(` — ${server ? `started dist/server.js at ${ctx.url}` : `using ${ctx.url}`}`));
    term.note('→ client to server   ← the server\'s response   ⇠ sent by the server on its own (notifications, requests)');
    const passed: boolean[] = [];
    try {
        for (const [index, step] of steps.entries()) {
            if (index > 0) {
                await term.pause(`step ${index + 1}: ${step.title}`);
            }
            term.heading(index + 1, step.title);
            const label = `Step ${index + 1}: ${step.title}`;
            try {
                await (term.interactive ? step.run(ctx) : withTimeout(step.run(ctx), STEP_TIMEOUT_MS));
                term.print(paint.green(`✔ ${label} — passed`));
                passed.push(true);
            } catch (err) {
                const message = err instanceof Error ? err.message : String(err);
                const hint = !(err instanceof StepFailure) && /Unauthorized|\b401\b/.test(message) ? ' (is MCP_TASKS_TOKEN the server\'s token?)' : '';
                term.print(paint.red(`✘ ${label} — FAILED: ${message}${hint}`));
                passed.push(false);
                if (index === 0) {
                    break; // nothing else can run without a session
                }
            }
        }
    } finally {
        await ctx.session?.close().catch(() => undefined);
        await server?.stop();
        term.close();
    }
    const ok = passed.filter(Boolean).length;
    const summary = `${ok}/${steps.length} steps passed`;
    term.print();
    term.print(ok === steps.length ? paint.bold(paint.green(summary)) : paint.bold(paint.red(summary)));
    term.print(paint.dim('The same steps, explained: docs/WALKTHROUGH.md'));
    return ok === steps.length ? 0 : 1;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StepFailure(`no outcome within ${ms / 1000} s`)), ms);
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

if (require.main === module) {
    main(process.argv.slice(2)).then(
        code => process.exit(code),
        (err: unknown) => {
            process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
            process.exit(2);
        },
    );
}
