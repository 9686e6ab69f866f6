import { createLogger, errorMessage } from './log.js';
import { HELP, parseCli, type CliOptions } from './options.js';
import { createTasksServer } from './server.js';
import { connectStdio } from './transports/stdio.js';
import { listenHttp } from './transports/http.js';
import { announceOwnerEndpoint } from './transports/ownerAnnounce.js';
import { SERVER_VERSION } from './version.js';

const SHUTDOWN_REASON = 'Server shutting down';

async function main(argv: string[]): Promise<number> {
    let options: CliOptions;
    try {
        options = parseCli(argv);
    } catch (err) {
        process.stderr.write(`mcp-tasks: ${errorMessage(err)}\nRun with --help for usage.\n`);
        return 2;
    }
    if (options.help) {
        process.stdout.write(HELP);
        return 0;
    }
    if (options.version) {
        process.stdout.write(`${SERVER_VERSION}\n`);
        return 0;
    }
    const log = createLogger(options.logLevel);
    const core = createTasksServer({ ...options, logger: log });

    if (options.transport === 'stdio') {
        const connection = connectStdio(core, { maxMessageBytes: options.bodyLimitBytes });
        log.info('[stdio] MCP Tasks server ready on stdin/stdout');
        const owner = options.ownerAnnounce
            ? await announceOwnerEndpoint(core, options.ownerAnnounce, options.ownerToken!, options.sessionIdleMs, options.bodyLimitBytes).catch(err => {
                  log.error(`[owner] cannot open the owner endpoint: ${errorMessage(err)}`);
                  return undefined;
              })
            : undefined;
        if (owner) {
            log.info(`[owner] owner endpoint on ${owner.url}`);
        }
        const signal = await Promise.race([connection.closed.then(() => 'end of input'), waitForSignal()]);
        log.info(`[stdio] stopping (${signal})`);
        owner?.stopAccepting();
        await core.close(SHUTDOWN_REASON);
        await owner?.close();
        return 0;
    }

    let http;
    try {
        http = await listenHttp(core, options);
    } catch (err) {
        log.error(`[http] cannot listen on ${options.host}:${options.port}: ${errorMessage(err)}`);
        await core.close();
        return 1;
    }
    process.stdout.write(JSON.stringify({ url: http.url }) + '\n');
    log.info(`[http] MCP Tasks server listening on ${http.url}${options.token ? ' (bearer token required)' : ' (no token: any local process may connect)'}`);
    const stdinClosed = options.exitWithStdin ? [stdinEnd()] : [];
    const signal = await Promise.race([waitForSignal(), ...stdinClosed]);
    log.info(`[http] stopping (${signal})`);
    http.stopAccepting();
    // Cancelling first lets each client see its tasks end, with the reason, before streams close.
    await core.close(SHUTDOWN_REASON);
    await http.close();
    return 0;
}

function stdinEnd(): Promise<string> {
    return new Promise(resolve => {
        process.stdin.resume();
        process.stdin.once('end', () => resolve('stdin closed'));
        process.stdin.once('close', () => resolve('stdin closed'));
    });
}

function waitForSignal(): Promise<string> {
    return new Promise(resolve => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
    });
}

main(process.argv.slice(2)).then(
    code => {
        process.exitCode = code;
        // Stray handles (a client's keep-alive socket) must not keep a stopping server alive.
        setTimeout(() => process.exit(code), 500).unref();
    },
    err => {
        process.stderr.write(`mcp-tasks: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exit(1);
    },
);
