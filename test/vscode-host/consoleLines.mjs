// Turns browser console messages into readable runner output. The extension
// host's console (mocha's reporter included) reaches us only this way. In a test
// run the workbench re-logs each extension-host console call through its log
// service, whose console logger prints `console.log('%c INFO', 'color: #33f', ...args)`,
// where args are what the extension passed (often a printf pattern, as mocha's are).
// Outside test runs it prints `'%c[Extension Host] %c<text> %c(<frame>)', css...`.
import { setTimeout as delay } from 'node:timers/promises';
import { format } from 'node:util';

const LOG_SERVICE_LEVEL = /^%c\s*(TRACE|DEBUG|INFO|WARN|ERR)$/;

// Workbench chatter that says nothing about the extension under test; the
// extension host's lines arrive through the same logger, so this can only be a
// list of known noise. `--verbose` shows it all.
const NOISE = [
    /^\[(AgentHost[^\]]*|ChatModelSelection|AccountPolicyGate|DefaultAccount|Service Worker|reconnection-grace-time)\]/,
    /^No search provider registered for scheme/,
    /^(Resolving|Resolved) connection token/,
    /^Creating a socket/,
    /^Updating additional builtin extensions cache/,
    /^The web worker extension host is started in a same-origin iframe/,
    /^Failed to load resource/,
    /^An iframe which has both allow-scripts and allow-same-origin/,
    // No internet: the marketplace (open-vsx) and GitHub sign-in cannot be reached.
    /ENOTFOUND open-vsx\.org/,
    /authentication provider 'github'/,
    /^Creation of workbench contribution '[^']+' took \d+ms/,
    /^$/,
];

// The first stack frame of an error thrown inside the workbench bundle itself
// (not in an extension, whose frames show file paths on the server).
const WORKBENCH_FRAME = /^\s+at .*\/static\/out\/vs\//;

export function isNoise(text) {
    const firstFrame = text.split('\n').find((line) => /^\s+at /.test(line));
    return NOISE.some((pattern) => pattern.test(text)) || (firstFrame !== undefined && WORKBENCH_FRAME.test(firstFrame));
}

/** Formats the values of one console call into `{ tag, text }`. */
export function formatConsoleValues(type, values) {
    const level = typeof values[0] === 'string' ? values[0].match(LOG_SERVICE_LEVEL)?.[1] : undefined;
    if (level) {
        // values[1] is the CSS for the level; the rest is the original call.
        return { tag: level === 'INFO' ? 'vscode' : `vscode ${level}`, text: format(...values.slice(2)) };
    }
    if (typeof values[0] === 'string' && values[0].startsWith('%c[')) {
        const parts = values[0].split('%c');
        const label = parts[1].replace(/^\[|\] $/g, '');
        // parts: ['', '[label] ', '<text> ', '(<frame>)']. The frame only says which
        // file called console.log: noise on every line, so it is dropped.
        const text = parts.length === 4 ? parts[2].trimEnd() : parts.slice(2).join('');
        const rest = values.slice(parts.length);
        return { tag: label === 'Extension Host' ? 'exthost' : label, text: format(text, ...rest) };
    }
    return { tag: `browser ${type}`, text: format(...values) };
}

/** Reads one Playwright ConsoleMessage; Errors come through as their stack. */
export async function formatConsoleMessage(message) {
    let values = await Promise.all(
        message.args().map((arg) =>
            arg
                .evaluate((v) => (v instanceof Error ? v.stack || String(v) : v))
                // The page may be gone by now; the handle's local preview still
                // holds primitives (all that printf-style logging passes).
                .catch(() => arg.toString()),
        ),
    );
    if (values.length === 0) {
        // Chromium's own messages (failed resource loads) carry no arguments.
        values = [message.text()];
    }
    return formatConsoleValues(message.type(), values);
}

/** Prefixes every line so multi-line output (stack traces) stays attributable. */
export function prefixLines({ tag, text }) {
    return text
        .split('\n')
        .map((line) => `[${tag}] ${line}`)
        .join('\n');
}

/**
 * Prints the page's console as it comes. Returns drain(), which waits for lines
 * still being formatted: the suite's last lines arrive just before
 * codeAutomationExit and must be printed before the browser closes.
 */
export function forwardConsole(page, log, verbose) {
    let queue = Promise.resolve();
    page.on('console', (message) => {
        // Fetch argument values at once (in parallel), but print in logging order.
        const line = formatConsoleMessage(message);
        queue = queue
            .then(() => line)
            .then((formatted) => {
                if (verbose || !isNoise(formatted.text)) {
                    log(prefixLines(formatted));
                }
            })
            .catch(() => {});
    });
    // Runner lines that must not overtake console lines still being formatted.
    const print = (line) => {
        queue = queue.then(() => log(line));
    };
    page.on('pageerror', (error) => print(prefixLines({ tag: 'browser pageerror', text: error.stack ?? error.message })));
    return { print, drain: () => Promise.race([queue, delay(5000, undefined, { ref: false })]) };
}
