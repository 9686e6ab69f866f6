// A small stand-in for the `vscode` module, enough to drive the prompter and the sampling
// responder from node:test. Importing this file first makes `require('vscode')` load it.
// It models only what those modules touch; the real behaviour is checked in the extension host.
import Module from 'node:module';
import * as l10nLib from '@vscode/l10n';
import './serverState.js';

type Listener<T> = (value: T) => void;

export class EventEmitter<T> {
    private listeners: Listener<T>[] = [];
    readonly event = (listener: Listener<T>) => {
        this.listeners.push(listener);
        return { dispose: () => (this.listeners = this.listeners.filter(l => l !== listener)) };
    };
    dispose(): void {
        this.listeners = [];
    }
    fire(value: T): void {
        for (const listener of [...this.listeners]) {
            listener(value);
        }
    }
}

export class ThemeIcon {
    constructor(readonly id: string) {}
}

export class ThemeColor {
    constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
    None = 0,
    Collapsed = 1,
    Expanded = 2,
}

export class TreeItem {
    id?: string;
    description?: string;
    iconPath?: unknown;
    contextValue?: string;
    tooltip?: string | MarkdownString;
    command?: unknown;
    accessibilityInformation?: unknown;
    constructor(
        readonly label: string,
        readonly collapsibleState?: TreeItemCollapsibleState,
    ) {}
}

export class MarkdownString {
    constructor(
        public value = '',
        readonly supportThemeIcons = false,
    ) {}
    appendMarkdown(text: string): this {
        this.value += text;
        return this;
    }
}

export enum QuickPickItemKind {
    Separator = -1,
    Default = 0,
}

export const QuickInputButtons = { Back: { iconPath: new ThemeIcon('arrow-left'), tooltip: 'Back' } };

interface Item {
    label: string;
    kind?: QuickPickItemKind;
}

/** One quick input; tests read its fields and call accept/hide/trigger as a user would. */
export class FakeQuickInput {
    title: string | undefined;
    placeholder: string | undefined;
    prompt: string | undefined;
    value = '';
    validationMessage: unknown;
    ignoreFocusOut = false;
    canSelectMany = false;
    matchOnDescription = false;
    buttons: readonly unknown[] = [];
    items: readonly Item[] = [];
    activeItems: readonly Item[] = [];
    selectedItems: readonly Item[] = [];
    visible = false;
    disposed = false;
    shown = 0;
    private readonly accept = new EventEmitter<void>();
    private readonly hideEmitter = new EventEmitter<void>();
    private readonly changeValue = new EventEmitter<string>();
    private readonly button = new EventEmitter<unknown>();
    private readonly selection = new EventEmitter<readonly Item[]>();
    readonly onDidAccept = this.accept.event;
    readonly onDidHide = this.hideEmitter.event;
    readonly onDidChangeValue = this.changeValue.event;
    readonly onDidTriggerButton = this.button.event;
    readonly onDidChangeSelection = this.selection.event;

    constructor(readonly kind: 'input' | 'pick') {}

    show(): void {
        this.visible = true;
        this.shown++;
        fake.opened.push(this);
        fake.notify();
    }
    hide(): void {
        if (this.visible) {
            this.visible = false;
            this.hideEmitter.fire();
        }
    }
    dispose(): void {
        this.hide();
        this.disposed = true;
    }

    // What a user does:
    typeText(value: string): void {
        this.value = value;
        this.changeValue.fire(value);
    }
    enter(): void {
        this.accept.fire();
    }
    pick(label: string): void {
        const item = this.items.find(i => i.label === label);
        if (!item) {
            throw new Error(`No item "${label}" in ${this.items.map(i => i.label).join(', ')}`);
        }
        this.selectedItems = [item];
        this.accept.fire();
    }
    check(labels: string[]): void {
        this.selectedItems = this.items.filter(i => labels.includes(i.label));
        this.selection.fire(this.selectedItems);
    }
    press(tooltip: string): void {
        const button = this.buttons.find(b => (b as { tooltip?: string }).tooltip === tooltip);
        if (!button) {
            throw new Error(`No button "${tooltip}"`);
        }
        this.button.fire(button);
    }
    escape(): void {
        this.hide();
    }
    labels(): string[] {
        return this.items.map(i => (i.kind === QuickPickItemKind.Separator ? '---' : i.label));
    }
}

type MessageHandler = (message: string, ...rest: unknown[]) => unknown;

/** Test controls: every input opened, the messages shown, and how to answer them. */
export const fake = {
    opened: [] as FakeQuickInput[],
    /** `disposed`: a status bar message taken down by its disposable. */
    messages: [] as { level: string; message: string; args: unknown[]; disposed?: boolean }[],
    openedExternal: [] as string[],
    openExternalResult: true,
    onInformation: undefined as MessageHandler | undefined,
    onWarning: undefined as MessageHandler | undefined,
    /** Command handlers registered with commands.registerCommand, by id. */
    registered: new Map<string, (...args: unknown[]) => unknown>(),
    models: [] as unknown[],
    /** Every command executed, with its arguments. */
    commands: [] as { id: string; args: unknown[] }[],
    /** Settings under `mcpTasks`, by key (e.g. 'server.maxTtl'); change them with setSetting. */
    settings: {} as Record<string, unknown>,
    setSetting(key: string, value: unknown): void {
        this.settings[key] = value;
        configurationChanged.fire({ affectsConfiguration: (section: string) => section === 'mcpTasks' || section === `mcpTasks.${key}` });
    },
    waiters: [] as (() => void)[],
    notify(): void {
        for (const waiter of this.waiters.splice(0)) {
            waiter();
        }
    },
    /** The next input that is shown (or the one already visible). */
    async next(): Promise<FakeQuickInput> {
        for (;;) {
            const visible = this.opened.find(i => i.visible && !i.disposed);
            if (visible) {
                return visible;
            }
            await new Promise<void>(resolve => this.waiters.push(resolve));
        }
    },
    /** Escapes whatever a failed test left open, so the prompt queue moves on. */
    reset(): void {
        for (const input of this.opened) {
            input.escape();
        }
        this.opened = [];
        this.messages = [];
        this.openedExternal = [];
        this.openExternalResult = true;
        this.onInformation = undefined;
        this.onWarning = undefined;
        this.registered.clear();
        this.models = [];
        this.commands = [];
        this.settings = {};
    },
};

export class CancellationTokenSource {
    private readonly emitter = new EventEmitter<void>();
    readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
    cancel(): void {
        if (!this.token.isCancellationRequested) {
            this.token.isCancellationRequested = true;
            this.emitter.fire();
        }
    }
    dispose(): void {}
}

export class LanguageModelError extends Error {
    constructor(
        message: string,
        readonly code: string,
    ) {
        super(message);
    }
}

export const LanguageModelChatMessage = {
    User: (content: string) => ({ role: 'user', content }),
    Assistant: (content: string) => ({ role: 'assistant', content }),
};

export const Uri = { parse: (value: string) => ({ toString: () => value }) };

export class McpHttpServerDefinition {
    constructor(
        readonly label: string,
        public uri: { toString(): string },
        public headers: Record<string, string> = {},
        readonly version?: string,
    ) {}
}

export class McpStdioServerDefinition {
    constructor(
        readonly label: string,
        readonly command: string,
        readonly args: string[],
        readonly env: Record<string, string | number | null> = {},
        readonly version?: string,
    ) {}
}

export const commands = {
    registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        fake.registered.set(id, handler);
        return { dispose: () => fake.registered.delete(id) };
    },
    executeCommand: (id: string, ...args: unknown[]) => {
        fake.commands.push({ id, args });
        return Promise.resolve(undefined);
    },
};

const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

const trustGranted = new EventEmitter<void>();
const foldersChanged = new EventEmitter<unknown>();

/** Workspace state for the command tools: folders, trust, workspace-level settings, file events. */
export const fakeWorkspace = {
    folders: [] as string[],
    trusted: true,
    /** Settings under `mcpTasks` from the workspace (settings.json of the folder), by key. */
    workspaceSettings: {} as Record<string, unknown>,
    /** The watchers created, in order: fire their events as the file system would. */
    watchers: [] as { pattern: string; create: EventEmitter<unknown>; change: EventEmitter<unknown>; remove: EventEmitter<unknown> }[],
    grantTrust(): void {
        this.trusted = true;
        trustGranted.fire();
    },
    setFolders(folders: string[]): void {
        this.folders = folders;
        foldersChanged.fire({});
    },
};

export const workspace = {
    getConfiguration: () => ({
        get: <T>(key: string, fallback: T): T => (key in fake.settings ? (fake.settings[key] as T) : fallback),
        inspect: <T>(key: string) => ({ key, globalValue: fake.settings[key] as T | undefined, workspaceValue: fakeWorkspace.workspaceSettings[key] as T | undefined }),
    }),
    onDidChangeConfiguration: configurationChanged.event,
    get workspaceFolders() {
        return fakeWorkspace.folders.map((path, index) => ({ index, name: path, uri: { scheme: 'file', fsPath: path } }));
    },
    get isTrusted() {
        return fakeWorkspace.trusted;
    },
    onDidGrantWorkspaceTrust: trustGranted.event,
    onDidChangeWorkspaceFolders: foldersChanged.event,
    createFileSystemWatcher: (pattern: string) => {
        const watcher = { pattern, create: new EventEmitter<unknown>(), change: new EventEmitter<unknown>(), remove: new EventEmitter<unknown>() };
        fakeWorkspace.watchers.push(watcher);
        return { onDidCreate: watcher.create.event, onDidChange: watcher.change.event, onDidDelete: watcher.remove.event, dispose() {} };
    },
};

const taskProcessEnded = new EventEmitter<{ execution: unknown; exitCode: number | undefined }>();
const taskEnded = new EventEmitter<{ execution: unknown }>();

/** VS Code's task system: the tasks it knows, what ran, and how a run ends (as the terminal would). */
/** A terminal as a task's runner finds it (by name); `sent` records what it was sent, `onText` plays the task's reaction. */
export interface FakeTerminal {
    name: string;
    exitStatus: undefined | { code: number | undefined };
    sent: string[];
    onText?: (text: string) => void;
    sendText(text: string, addNewLine?: boolean): void;
    show(preserveFocus?: boolean): void;
}

export function fakeTerminal(name: string, onText?: (text: string) => void): FakeTerminal {
    return {
        name,
        exitStatus: undefined,
        sent: [],
        onText,
        sendText(text: string) {
            this.sent.push(text);
            this.onText?.(text);
        },
        show() {},
    };
}

export const fakeTasks = {
    known: [] as { name: string; source: string }[],
    /** The open terminals (`window.terminals`). */
    terminals: [] as FakeTerminal[],
    executed: [] as { task: { name: string }; terminated: boolean; terminate(): void }[],
    /** The task's process exited (the event VS Code fires, then its task-end event). */
    exit(execution: unknown, exitCode: number | undefined): void {
        taskProcessEnded.fire({ execution, exitCode });
        taskEnded.fire({ execution });
    },
};

export const tasks = {
    fetchTasks: () => Promise.resolve(fakeTasks.known),
    executeTask: (task: { name: string }) => {
        const execution = {
            task,
            terminated: false,
            terminate() {
                this.terminated = true;
                fakeTasks.exit(execution, undefined);
            },
        };
        fakeTasks.executed.push(execution);
        return Promise.resolve(execution);
    },
    onDidEndTaskProcess: taskProcessEnded.event,
    onDidEndTask: taskEnded.event,
};

export const window = {
    get terminals() {
        return fakeTasks.terminals;
    },
    createInputBox: () => new FakeQuickInput('input'),
    createQuickPick: () => new FakeQuickInput('pick'),
    showInformationMessage: (message: string, ...args: unknown[]) => {
        fake.messages.push({ level: 'info', message, args });
        return Promise.resolve(fake.onInformation?.(message, ...args));
    },
    showWarningMessage: (message: string, ...args: unknown[]) => {
        fake.messages.push({ level: 'warning', message, args });
        return Promise.resolve(fake.onWarning?.(message, ...args));
    },
    setStatusBarMessage: (message: string) => {
        const shown = { level: 'status', message, args: [], disposed: false };
        fake.messages.push(shown);
        return { dispose: () => void (shown.disposed = true) };
    },
    showErrorMessage: (message: string, ...args: unknown[]) => {
        fake.messages.push({ level: 'error', message, args });
        return Promise.resolve(undefined);
    },
};

export const env = {
    openExternal: (uri: { toString(): string }) => {
        fake.openedExternal.push(uri.toString());
        return Promise.resolve(fake.openExternalResult);
    },
};

export const lm = { selectChatModels: () => Promise.resolve(fake.models) };

/** VS Code with its default language: no bundle, and `t` fills `{0}`/`{name}` as VS Code does (the same rules as @vscode/l10n). */
export const l10n = { bundle: undefined, uri: undefined, t: l10nLib.t };

// Route `require('vscode')` here.
const moduleWithResolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = moduleWithResolver._resolveFilename;
moduleWithResolver._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? __filename : resolve.call(this, request, ...rest);
};
