// Bundles the server CLI (and, later, the extension) into self-contained CommonJS files in dist/.
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** Prints errors in the form VS Code's esbuild problem matcher reads. */
const problemMatcher = {
    name: 'problem-matcher',
    setup(build) {
        build.onStart(() => console.log('[watch] build started'));
        build.onEnd(result => {
            for (const { text, location } of result.errors) {
                console.error(`✘ [ERROR] ${text}`);
                if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
            }
            console.log('[watch] build finished');
        });
    },
};

const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: production,
    sourcemap: production ? false : 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    define: { __MCP_TASKS_VERSION__: JSON.stringify(version) },
    plugins: watch ? [problemMatcher] : [],
};

const contexts = await Promise.all([
    esbuild.context({ ...common, entryPoints: { server: 'server/src/cli.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } }),
]);

if (watch) {
    await Promise.all(contexts.map(ctx => ctx.watch()));
} else {
    await Promise.all(contexts.map(ctx => ctx.rebuild()));
    await Promise.all(contexts.map(ctx => ctx.dispose()));
}
