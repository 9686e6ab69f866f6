import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confineCwd } from '../../../../server/src/commands/confine.js';

describe('confineCwd on folders that do not exist yet', () => {
    it('counts a missing folder by its deepest existing parent, right under / too', () => {
        assert.deepEqual(confineCwd('/no-such-folder-mcp-tasks', ['/no-such-folder-mcp-tasks']), { real: '/no-such-folder-mcp-tasks' });
        const tmp = confineCwd('/tmp', ['/']);
        assert.ok('real' in tmp && tmp.real);
        assert.deepEqual(confineCwd('/tmp/no-such-folder-mcp-tasks/deeper', ['/tmp']), { real: `${tmp.real}/no-such-folder-mcp-tasks/deeper` });
        assert.match(confineCwd('/no-such-folder-mcp-tasks', ['/tmp']).refused ?? '', /outside the declared roots/);
    });
});
