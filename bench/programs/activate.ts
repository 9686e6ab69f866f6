// Times the extension's activate() outside VS Code: a Module._resolveFilename hook routes
// require('vscode') to a small stub exposing what activation touches, then dist/extension.js is
// required and activated. Prints {"loadMs","activateMs","loggedMs"} and exits (activation starts
// no server: VS Code's resolve does).
// Usage: node activate.js /abs/path/to/dist/extension.js
import { mkdtempSync, rmSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

type Listener = (value: unknown) => void;

/** A permissive stand-in for any API object: every property is callable, constructible and disposable. */
function anything(): unknown {
    const target = function () {};
    return new Proxy(target, {
        get(_target, prop) {
            if (typeof prop === 'symbol' || prop === 'then') {
                return undefined;
            }
            if (prop === 'dispose') {
                return () => undefined;
            }
            return anything();
        },
        set: () => true,
        apply: () => anything(),
        construct: () => anything() as object,
    });
}

/** An object with the given members, anything() for the rest. */
function shaped(members: Record<string, unknown>): Record<string, unknown> {
    return new Proxy(members, {
        get(target, prop) {
            if (typeof prop === 'symbol' || prop === 'then') {
                return undefined;
            }
            return prop in target ? target[prop] : anything();
        },
    });
}

class Disposable {
    static from(...items: { dispose(): unknown }[]): Disposable {
        return new Disposable(() => items.forEach(item => item.dispose()));
    }
    constructor(private readonly callback: () => unknown) {}
    dispose(): void {
        this.callback();
    }
}

class EventEmitter {
    private listeners: Listener[] = [];
    readonly event = (listener: Listener) => {
        this.listeners.push(listener);
        return new Disposable(() => (this.listeners = this.listeners.filter(l => l !== listener)));
    };
    fire(value: unknown): void {
        for (const listener of [...this.listeners]) {
            listener(value);
        }
    }
    dispose(): void {
        this.listeners = [];
    }
}

class TreeItem {
    constructor(
        readonly label: unknown,
        readonly collapsibleState?: number,
    ) {}
}

class Uri {
    static parse(value: string): Uri {
        return new Uri(value);
    }
    static file(path: string): Uri {
        return new Uri(`file://${path}`);
    }
    static from(parts: { scheme: string; path?: string }): Uri {
        return new Uri(`${parts.scheme}:${parts.path ?? ''}`);
    }
    static joinPath(base: Uri, ...segments: string[]): Uri {
        return new Uri([base.value, ...segments].join('/'));
    }
    constructor(readonly value: string) {}
    get fsPath(): string {
        return this.value.replace(/^file:\/\//, '');
    }
    toString(): string {
        return this.value;
    }
}

const logged: string[] = [];
const event = () => new EventEmitter().event;

function outputChannel(): unknown {
    const write = (message: string) => void logged.push(message);
    return shaped({ info: write, warn: write, error: write, debug: write, trace: write, appendLine: write, append: write, show: () => undefined, dispose: () => undefined, onDidChangeLogLevel: event(), logLevel: 2 });
}

const vscodeStub = shaped({
    Disposable,
    EventEmitter,
    TreeItem,
    Uri,
    ThemeIcon: class {
        constructor(readonly id: string) {}
    },
    ThemeColor: class {
        constructor(readonly id: string) {}
    },
    MarkdownString: class {
        constructor(public value = '') {}
        appendMarkdown(text: string) {
            this.value += text;
            return this;
        }
        appendText(text: string) {
            this.value += text;
            return this;
        }
    },
    // Tab kinds the result documents test with instanceof: a proxy cannot stand on instanceof's right.
    TabInputText: class {},
    TabInputWebview: class {},
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    QuickPickItemKind: { Separator: -1, Default: 0 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    window: shaped({
        createOutputChannel: outputChannel,
        state: { focused: true, active: true },
        onDidChangeWindowState: event(),
        // No editor open at activation.
        tabGroups: shaped({ activeTabGroup: { activeTab: undefined }, all: [], onDidChangeTabs: event(), onDidChangeTabGroups: event() }),
    }),
    workspace: shaped({
        getConfiguration: () => shaped({ get: (_key: string, fallback?: unknown) => fallback, has: () => false, inspect: () => undefined, update: async () => undefined }),
        onDidChangeConfiguration: event(),
        workspaceFolders: undefined,
    }),
    commands: shaped({ registerCommand: () => new Disposable(() => undefined), executeCommand: async () => undefined }),
    tasks: shaped({ onDidEndTask: event(), onDidEndTaskProcess: event(), fetchTasks: async () => [], executeTask: async () => anything() }),
    lm: shaped({ registerMcpServerDefinitionProvider: () => new Disposable(() => undefined), selectChatModels: async () => [] }),
    env: shaped({ machineId: 'bench', sessionId: 'bench', appName: 'bench' }),
    // English: no bundle, and t() returns the message (placeholders are not needed at activation).
    l10n: { bundle: undefined, t: (message: string | { message: string }) => (typeof message === 'string' ? message : message.message) },
});

const STUB_ID = join(__dirname, '__vscode_stub__.js');
const stubModule = new Module(STUB_ID);
stubModule.exports = vscodeStub;
stubModule.loaded = true;
const cache = (Module as unknown as { _cache: Record<string, Module> })._cache;
cache[STUB_ID] = stubModule;
const withResolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolveFilename = withResolver._resolveFilename;
withResolver._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? STUB_ID : resolveFilename.call(this, request, ...rest);
};

function memento(): unknown {
    const values = new Map<string, unknown>();
    return shaped({ get: (key: string, fallback?: unknown) => (values.has(key) ? values.get(key) : fallback), update: async (key: string, value: unknown) => void values.set(key, value), keys: () => [...values.keys()], setKeysForSync: () => undefined });
}

const extensionJs = process.argv[2]!;
// Activation writes into its storage (the commands file's state, the command logs' folder): a folder per run, removed at exit.
const storage = mkdtempSync(join(tmpdir(), 'mcp-tasks-activate-'));
const extensionRoot = dirname(dirname(extensionJs));
const context = shaped({
    subscriptions: [] as unknown[],
    extensionMode: 1,
    extensionPath: extensionRoot,
    extensionUri: Uri.file(extensionRoot),
    asAbsolutePath: (relative: string) => join(extensionRoot, relative),
    globalState: memento(),
    workspaceState: memento(),
    secrets: shaped({ get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: event() }),
    globalStorageUri: Uri.file(join(storage, 'global')),
    storageUri: undefined,
    logUri: Uri.file(join(storage, 'log')),
});

const requireFromHere = Module.createRequire(__filename);
const t0 = performance.now();
const extension = requireFromHere(extensionJs) as { activate(context: unknown): unknown };
const t1 = performance.now();
extension.activate(context);
const t2 = performance.now();
const line = logged.find(message => /activated in \d+ ms/.test(message));
const loggedMs = line ? Number(/activated in (\d+) ms/.exec(line)![1]) : null;
process.stdout.write(JSON.stringify({ loadMs: t1 - t0, activateMs: t2 - t1, loggedMs }) + '\n');
rmSync(storage, { recursive: true, force: true });
process.exit(0);
