import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: {
        commands: { command: string }[];
        menus: Record<string, { command: string }[]>;
        mcpServerDefinitionProviders: { id: string; label: string }[];
        walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown?: string; image?: string } }[] }[];
        configuration: { properties: Record<string, unknown> };
        viewsContainers: { activitybar: { id: string }[] };
    };
    activationEvents: string[];
    capabilities: { untrustedWorkspaces: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] } };
};

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

describe('package.json manifest', () => {
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
            assert.ok(key in manifest.contributes.configuration.properties, `${key} is not a contributed setting`);
        }
    });
});
