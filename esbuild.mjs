// Bundles the server CLI (and, later, the extension) into self-contained CommonJS files in dist/.
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { cliApart, gatewayClientApart, redisClientApart } from './scripts/redisClientApart.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// --analyze: print what dist/extension.js is made of, biggest inputs first (a dependency creeping back shows here).
const analyze = process.argv.includes('--analyze');
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * Prints errors in the form the `watch` task's problem matcher (.vscode/tasks.json) reads. The
 * bundles rebuild side by side: "started" marks the first of them starting and "finished" the
 * last one ending, so a launch that waits for "finished" finds every bundle written.
 */
let building = 0;
const problemMatcher = {
    name: 'problem-matcher',
    setup(build) {
        build.onStart(() => {
            if (building++ === 0) console.log('[watch] build started');
        });
        build.onEnd(result => {
            for (const { text, location } of result.errors) {
                console.error(`✘ [ERROR] ${text}`);
                if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
            }
            if (--building === 0) console.log('[watch] build finished');
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

const integrationEntries = readdirSync('test/integration')
    .filter(file => file.endsWith('.ts'))
    .map(file => `test/integration/${file}`);

const contexts = await Promise.all([
    // The server CLI: standalone, every dependency inside, launched by the extension and by users.
    // dist/server.js only turns on Node's compile cache and loads dist/server-main.js (launch.ts).
    // Its import('./cli.js') becomes a require: dist/server-main.js is CommonJS, and import() of a
    // CommonJS file first scans all 1.4 MB of it for named exports (cjs-module-lexer), which made the
    // first answer over stdio 2.5× slower through the launcher than with server-main.js run directly.
    esbuild.context({ ...common, entryPoints: { server: 'server/src/launch.ts' }, outdir: 'dist', supported: { 'dynamic-import': false }, plugins: [...common.plugins, cliApart] }),
    esbuild.context({ ...common, entryPoints: { 'server-main': 'server/src/cli.ts' }, outdir: 'dist', plugins: [...common.plugins, redisClientApart, gatewayClientApart] }),
    esbuild.context({ ...common, entryPoints: { 'redis-client': 'server/src/tasks/redisClient.ts' }, outdir: 'dist' }),
    esbuild.context({ ...common, entryPoints: { 'gateway-client': 'server/src/gateway/sdkClient.ts' }, outdir: 'dist' }),
    // The extension: vscode is provided by the editor.
    esbuild.context({ ...common, entryPoints: { extension: 'extension/extension.ts' }, outdir: 'dist', external: ['vscode'], metafile: analyze }),
    // The integration suite, run inside a real VS Code; mocha comes from node_modules at run time.
    ...(process.argv.includes('--tests')
        ? [esbuild.context({ ...common, minify: false, entryPoints: integrationEntries, outdir: 'out/test/integration', external: ['vscode', 'mocha'] })]
        : []),
]);

if (watch) {
    await Promise.all(contexts.map(ctx => ctx.watch()));
} else {
    const results = await Promise.all(contexts.map(ctx => ctx.rebuild()));
    await Promise.all(contexts.map(ctx => ctx.dispose()));
    for (const { metafile } of results.filter(result => result.metafile)) {
        console.log(await esbuild.analyzeMetafile(metafile));
    }
}
