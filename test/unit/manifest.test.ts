import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[]; menus: Record<string, { command: string }[]>; mcpServerDefinitionProviders: { id: string; label: string }[] };
    activationEvents: string[];
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
});
