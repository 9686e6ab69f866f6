import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ENTRY_KEYS, PARAMETER_KEYS } from '@mcp-tasks/server/commandSpec';

const root = resolve(__dirname, '../../..');
const raw = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
/** VS Code replaces a string that is exactly `%key%` with the key's text from package.nls.json. */
const PLACEHOLDER = /^%([\w.-]+)%$/;

/** Every string in the manifest with its JSON path. */
function strings(value: unknown, path = ''): [path: string, text: string][] {
    if (typeof value === 'string') {
        return [[path, value]];
    }
    if (value && typeof value === 'object') {
        return Object.entries(value).flatMap(([key, child]) => strings(child, `${path}/${key}`));
    }
    return [];
}

/** The manifest as VS Code shows it (English): every `%key%` replaced. */
function localize(value: unknown): unknown {
    if (typeof value === 'string') {
        const key = PLACEHOLDER.exec(value)?.[1];
        return key !== undefined && key in nls ? nls[key] : value;
    }
    if (Array.isArray(value)) {
        return value.map(localize);
    }
    if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, localize(child)]));
    }
    return value;
}

const manifest = localize(raw) as {
    contributes: {
        commands: { command: string }[];
        menus: Record<string, { command: string }[]>;
        mcpServerDefinitionProviders: { id: string; label: string }[];
        walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown?: string; image?: string } }[] }[];
        configuration: { id: string; title: string; properties: Record<string, { order?: number }> }[];
        viewsContainers: { activitybar: { id: string }[] };
    };
    activationEvents: string[];
    capabilities: { untrustedWorkspaces: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] } };
};

interface SchemaObject {
    properties: Record<string, { additionalProperties?: unknown }>;
    additionalProperties?: unknown;
}

/** Every contributed setting, from all configuration sections, with its schema. */
function settings(): Map<string, { order?: number }> {
    return new Map(manifest.contributes.configuration.flatMap(section => Object.entries(section.properties)));
}

/** Every `registerCommand(Commands.x` in the extension sources, resolved through constants.ts. */
function registeredCommands(): Set<string> {
    const constants = readFileSync(join(root, 'extension/constants.ts'), 'utf8');
    const block = /export const Commands = \{([\s\S]*?)\} as const;/.exec(constants)![1]!;
    const ids = new Map([...block.matchAll(/(\w+): '([^']+)'/g)].map(m => [m[1]!, m[2]!]));
    const registered = new Set<string>();
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) {
                walk(path);
            } else if (entry.name.endsWith('.ts')) {
                for (const m of readFileSync(path, 'utf8').matchAll(/registerCommand\(Commands\.(\w+)/g)) {
                    registered.add(ids.get(m[1]!)!);
                }
            }
        }
    };
    walk(join(root, 'extension'));
    return registered;
}

// Where the manifest holds words a user reads; each must be a %key% so it can be translated.
const USER_VISIBLE = [
    /^\/(displayName|description)$/,
    /^\/capabilities\/untrustedWorkspaces\/description$/,
    /^\/contributes\/walkthroughs\/\d+\/(title|description)$/,
    /^\/contributes\/walkthroughs\/\d+\/steps\/\d+\/(title|description)$/,
    /^\/contributes\/commands\/\d+\/(title|category)$/,
    /^\/contributes\/configuration\/\d+\/title$/,
    /^\/contributes\/configuration\/\d+\/properties\/[\w.]+\/(description|markdownDescription|enumDescriptions\/\d+)$/,
    /^\/contributes\/viewsContainers\/\w+\/\d+\/title$/,
    /^\/contributes\/views\/\w+\/\d+\/(name|contextualTitle)$/,
    /^\/contributes\/viewsWelcome\/\d+\/contents$/,
];

describe('package.nls.json', () => {
    it('every user-visible manifest string is a %key%', () => {
        const visible = strings(raw).filter(([path]) => USER_VISIBLE.some(re => re.test(path)));
        assert.ok(visible.length >= 30, `found the user-visible strings (${visible.length})`);
        for (const [path, text] of visible) {
            assert.match(text, PLACEHOLDER, `${path} is English text, not a %key% from package.nls.json`);
        }
    });

    it('has every %key% package.json uses, and no key it does not use', () => {
        const used = new Set(strings(raw).flatMap(([, text]) => PLACEHOLDER.exec(text)?.[1] ?? []));
        for (const key of used) {
            assert.ok(typeof nls[key] === 'string' && nls[key] !== '', `%${key}% has no text in package.nls.json`);
        }
        assert.deepEqual(Object.keys(nls).filter(key => !used.has(key)), [], 'unused keys in package.nls.json');
    });

    it('ships with the .vsix, with the l10n bundle folder package.json names', () => {
        const shipped = readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n');
        assert.equal(raw.l10n, './l10n');
        assert.ok(shipped.includes('!package.nls.json'), 'package.nls.json is in the .vscodeignore allowlist');
        assert.ok(shipped.includes('!l10n/*.json'), 'l10n/ is in the .vscodeignore allowlist');
        // The server loads the gateway's MCP client from beside it when mcpTasks.wrap is set.
        assert.ok(shipped.includes('!dist/gateway-client.js'), 'dist/gateway-client.js is in the .vscodeignore allowlist');
        // dist/server.js is only the launcher that turns on the compile cache; the CLI is beside it.
        assert.ok(shipped.includes('!dist/server.js') && shipped.includes('!dist/server-main.js'), 'dist/server.js and dist/server-main.js are in the .vscodeignore allowlist');
        assert.ok(existsSync(join(root, 'l10n/bundle.l10n.json')));
    });
});

describe('package.json manifest', () => {
    it('the mcpTasks.commands schema takes exactly the keys a commands file does (an unknown key is refused by both)', () => {
        const entry = (settings().get('mcpTasks.commands') as { items: SchemaObject }).items;
        const parameter = entry.properties.parameters!.additionalProperties as SchemaObject;
        for (const [schema, keys] of [
            // Owner-job entries come from mcpTasks.exposeVsCodeTasks, never from this setting.
            [entry, ENTRY_KEYS.filter(key => key !== 'ownerJob')],
            [parameter, PARAMETER_KEYS],
        ] as const) {
            assert.equal(schema.additionalProperties, false);
            assert.deepEqual(Object.keys(schema.properties).sort(), [...keys].sort());
        }
        // The JSON schema for .vscode/mcp-tasks.json files says the same.
        const file = JSON.parse(readFileSync(join(root, 'media/mcp-tasks.schema.json'), 'utf8')) as { properties: { tools: { items: SchemaObject } } };
        const fileEntry = file.properties.tools.items;
        assert.deepEqual(Object.keys(fileEntry.properties).sort(), Object.keys(entry.properties).sort());
        assert.deepEqual(Object.keys((fileEntry.properties.parameters!.additionalProperties as SchemaObject).properties).sort(), [...PARAMETER_KEYS].sort());
    });

    it('registers every contributed command in the code', () => {
        const registered = registeredCommands();
        for (const { command } of manifest.contributes.commands) {
            assert.ok(registered.has(command), `${command} is contributed but never registered`);
        }
    });

    it('contributes every command the code registers', () => {
        const contributed = new Set(manifest.contributes.commands.map(c => c.command));
        for (const command of registeredCommands()) {
            assert.ok(contributed.has(command), `${command} is registered but not in package.json`);
        }
    });

    it('menus only name contributed commands', () => {
        const contributed = new Set(manifest.contributes.commands.map(c => c.command));
        for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
            for (const item of items) {
                assert.ok(contributed.has(item.command), `${menu} names unknown command ${item.command}`);
            }
        }
    });

    it('decides for every command when the palette offers it, with keys the code sets', () => {
        const palette = new Map((manifest.contributes.menus.commandPalette as { command: string; when?: string }[]).map(item => [item.command, item.when]));
        const keys = readFileSync(join(root, 'extension/views/contextKeys.ts'), 'utf8');
        for (const { command } of manifest.contributes.commands) {
            const when = palette.get(command);
            assert.ok(when, `${command} has no commandPalette when clause`);
            for (const key of when.match(/mcpTasks\.\w+/g) ?? []) {
                assert.ok(keys.includes(`'${key}'`), `${command}'s when clause uses ${key}, which contextKeys.ts never sets`);
            }
        }
        // Row commands act on the row they are invoked on: the palette would only offer a pick.
        for (const command of ['mcpTasks.cancelTask', 'mcpTasks.showResult', 'mcpTasks.copyTaskId']) {
            assert.equal(palette.get(command), 'false', `${command} is offered in the palette`);
        }
        assert.equal(palette.get('mcpTasks.respond'), 'mcpTasks.needsInput');
        assert.equal(palette.get('mcpTasks.clearFinished'), 'mcpTasks.hasFinished');
        // A server that failed to start is restarted from the palette too.
        assert.equal(palette.get('mcpTasks.restartServer'), 'mcpTasks.serverRunning || mcpTasks.serverProblem');
    });

    it("keeps the view's title-bar buttons in place: they show whenever the view does, and grey out (enablement) when they cannot act", () => {
        // The title bar is right-aligned: a button that appeared would push the others under the pointer.
        const title = manifest.contributes.menus['view/title'] as { command: string; when?: string; group?: string }[];
        // One button may come and go at the left end, where it moves none of the others: Restart Server,
        // while the server is down (the view's message points at it).
        const order = (item: { group?: string }) => Number(item.group?.split('@')[1] ?? 0);
        const navigation = title.filter(item => item.group?.startsWith('navigation')).sort((a, b) => order(a) - order(b));
        const [leftEnd, ...buttons] = navigation;
        assert.deepEqual(leftEnd, { command: 'mcpTasks.restartServer', when: 'view == mcpTasks.tasks && mcpTasks.serverProblem', group: 'navigation@0' });
        assert.deepEqual(
            buttons.map(item => item.command),
            ['mcpTasks.runTool', 'mcpTasks.clearFinished', 'mcpTasks.refresh'],
        );
        for (const item of buttons) {
            assert.equal(item.when, 'view == mcpTasks.tasks', `${item.command} comes and goes`);
        }
        const enablement = new Map((manifest.contributes.commands as { command: string; enablement?: string }[]).map(c => [c.command, c.enablement]));
        assert.equal(enablement.get('mcpTasks.clearFinished'), 'mcpTasks.hasFinished');
        assert.equal(enablement.get('mcpTasks.refresh'), 'mcpTasks.serverRunning');
        assert.equal(enablement.get('mcpTasks.runTool'), undefined);
    });

    it("keeps the walkthrough's description short enough for its page (which clips it at three lines of a narrow column)", () => {
        const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
        const description = nls['walkthrough.gettingStarted.description']!;
        assert.ok(description.length <= 60, `${description.length} characters: ${description}`);
        // The Welcome page's Walkthroughs list cuts a title after about 19 characters beside its New badge (seen in ui.test.ts).
        const title = nls['walkthrough.gettingStarted.title']!;
        assert.ok(title.length <= 18, `${title.length} characters: ${title}`);
    });

    it('orders every setting, Transport first, in titled sections named for their keys', () => {
        const ordered = [...settings()].map(([key, schema]) => {
            assert.equal(typeof schema.order, 'number', `${key} has no order`);
            return [key, schema.order!] as const;
        });
        assert.equal([...ordered].sort((a, b) => a[1] - b[1])[0]![0], 'mcpTasks.transport');
        assert.equal(new Set(ordered.map(([, order]) => order)).size, ordered.length, 'two settings share an order');
        for (const section of manifest.contributes.configuration) {
            assert.ok(section.title && !section.title.startsWith('%'), `section ${section.id} has no title`);
            // VS Code drops the section id from the labels of the keys under it ("Default Ttl", not "Mcp Tasks › Server: Default Ttl").
            for (const key of Object.keys(section.properties)) {
                assert.match(key, new RegExp(`^${section.id.replace('.', '\\.')}\\.[\\w]+$`), `${key} is not directly under section ${section.id}`);
            }
        }
    });

    it('binds Enter, Space and Delete to the focused task row, which VS Code passes them, as its own trees do', () => {
        const bindings = (raw.contributes as { keybindings: { command: string; key: string; when: string; args?: unknown }[] }).keybindings;
        const contributed = new Set(manifest.contributes.commands.map(c => c.command));
        for (const binding of bindings) {
            assert.ok(contributed.has(binding.command), `keybinding names unknown command ${binding.command}`);
            // No state of a row in the when clause (the selected row's would be the wrong one); some task
            // shown, else the empty view's Welcome buttons have the focus and Enter is theirs.
            assert.equal(binding.when, 'focusedView == mcpTasks.tasks && listFocus && !inputFocus && (mcpTasks.hasActive || mcpTasks.hasFinished)');
            // VS Code's extension host turns this argument into the tree's focused element (extHostTreeViews' argument processor).
            assert.deepEqual(binding.args, { $treeViewId: 'mcpTasks.tasks', $focusedTreeItem: true });
        }
        assert.deepEqual(bindings.map(b => `${b.key} ${b.command}`), ['enter mcpTasks.openRow', 'space mcpTasks.selectRow', 'delete mcpTasks.cancelTaskConfirm']);
    });

    it('gives the MCP provider an id and a label, and never activates on *', () => {
        assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders, [{ id: 'mcpTasks.servers', label: 'MCP Tasks' }]);
        assert.ok(!manifest.activationEvents.includes('*'));
    });

    it('walkthrough steps show markdown files that exist and ship in the .vsix', () => {
        const shipped = readFileSync(join(root, '.vscodeignore'), 'utf8');
        const steps = manifest.contributes.walkthroughs.flatMap(w => w.steps);
        assert.deepEqual(steps.map(s => s.id), ['openSidebar', 'runTool', 'useFromChat']);
        for (const step of steps) {
            const file = step.media.markdown!;
            assert.ok(file, `${step.id} has no markdown media`);
            assert.ok(existsSync(join(root, file)), `${step.id}: ${file} does not exist`);
            assert.match(readFileSync(join(root, file), 'utf8'), /^# \S/, `${file} starts with a heading`);
            assert.ok(shipped.includes(`!${file.replace(/[^/]+\.md$/, '*.md')}`) || shipped.includes(`!${file}`), `${file} is not in the .vscodeignore allowlist`);
        }
    });

    it('walkthrough links name our commands, or the view container and chat the walkthrough opens', () => {
        const contributed = new Set(manifest.contributes.commands.map(c => c.command));
        const container = manifest.contributes.viewsContainers.activitybar[0]!.id;
        const allowed = new Set([...contributed, `workbench.view.extension.${container}`, 'workbench.action.chat.open']);
        for (const step of manifest.contributes.walkthroughs.flatMap(w => w.steps)) {
            for (const [, command] of step.description.matchAll(/\(command:([\w.]+)\)/g)) {
                assert.ok(allowed.has(command!), `${step.id} links to unknown command ${command}`);
            }
        }
    });

    it('declares limited support for untrusted workspaces, restricting only settings that exist', () => {
        const { supported, description, restrictedConfigurations = [] } = manifest.capabilities.untrustedWorkspaces;
        assert.equal(supported, 'limited');
        assert.ok(description && description.length > 20);
        for (const key of restrictedConfigurations) {
            assert.ok(settings().has(key), `${key} is not a contributed setting`);
        }
    });
});
