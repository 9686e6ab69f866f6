// The .vsix's README: the editor users' page (extension/README.md), handed to vsce by
// `npm run package`, with links that resolve inside the packaged extension and a word on every
// command and setting the manifest contributes.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { PACKAGED, rebaseToRoot, SOURCE, writeVsixReadme } from '../../../scripts/vsixReadme.mjs';

const root = resolve(__dirname, '../../..');
const source = readFileSync(join(root, SOURCE), 'utf8');
const packaged = rebaseToRoot(source);
const allowlist = readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n');
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: { commands: { title: string; category: string }[]; configuration: { properties: Record<string, unknown> }[] };
};

/** Relative targets of markdown links and images: `[text](target)` without a scheme or anchor. */
function relativeLinks(markdown: string): { image: boolean; target: string }[] {
    return [...markdown.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)]
        .map(([, bang, target]) => ({ image: bang === '!', target: target!.split('#')[0]! }))
        .filter(link => link.target && !/^[a-z]+:/i.test(link.target));
}

describe('the .vsix README', () => {
    it('npm run package hands vsce the rebased editor README', () => {
        const script = readFileSync(join(root, 'scripts/package.mjs'), 'utf8');
        assert.match(script, /const readme = writeVsixReadme\(root\);/);
        assert.match(script, /'--readme-path', readme/);
        // The details page draws only https: images: vsce must rewrite relative ones to the repository.
        assert.doesNotMatch(script, /--no-rewrite-relative-links/);
        assert.match((manifest as unknown as { repository: { url: string } }).repository.url, /^https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/);
        assert.equal(PACKAGED, 'dist/README.md');
        // The repository's README must not ship beside it (vsce would pack both).
        assert.ok(!allowlist.includes('!README.md'), '.vscodeignore ships the repository README');
    });

    it('is written on a fresh clone, where nothing has created dist/ yet', () => {
        const clone = mkdtempSync(join(tmpdir(), 'mcp-tasks-readme-'));
        try {
            mkdirSync(join(clone, 'extension'));
            writeFileSync(join(clone, SOURCE), '# MCP Tasks\n![shot](../docs/a.png)\n');
            assert.equal(writeVsixReadme(clone), PACKAGED);
            assert.equal(readFileSync(join(clone, PACKAGED), 'utf8'), '# MCP Tasks\n![shot](docs/a.png)\n');
        } finally {
            rmSync(clone, { recursive: true, force: true });
        }
    });

    it('is written for editor users: no clone, build or server set-up', () => {
        assert.match(source, /^# MCP Tasks\n/);
        for (const developerOnly of ['npm ci', 'npm test', 'redis', '--store', 'nginx']) {
            assert.ok(!source.toLowerCase().includes(developerOnly.toLowerCase()), `mentions ${developerOnly}`);
        }
    });

    it('every relative link resolves from the repository root, where vsce points it', () => {
        const links = relativeLinks(packaged);
        assert.ok(links.some(link => link.image), 'shows at least one screenshot');
        for (const { image, target } of links) {
            assert.ok(!target.startsWith('../'), `${target} leaves the repository`);
            assert.ok(existsSync(join(root, target)), `${target} does not exist`);
            if (image) {
                // Drawn from the repository's URL: a copy in the .vsix would never be shown.
                assert.ok(!allowlist.includes(`!${target}`), `${target} ships in the .vsix for nothing`);
            }
        }
        // The same links work where the source sits, in the repository.
        for (const { target } of relativeLinks(source)) {
            assert.ok(existsSync(join(root, 'extension', target)), `${target} is broken in ${SOURCE}`);
        }
    });

    it('names every contributed command and setting', () => {
        for (const command of manifest.contributes.commands) {
            // Titles are %key%s resolved from package.nls.json, as VS Code shows them.
            const title = command.title.replace(/^%(.+)%$/, (_, key: string) => nls[key] ?? command.title);
            assert.ok(source.includes(title.replace('…', '')), `command "${title}" is not described`);
        }
        for (const setting of manifest.contributes.configuration.flatMap(section => Object.keys(section.properties))) {
            assert.ok(source.includes(`\`${setting}\``), `setting ${setting} is not described`);
        }
    });
});
