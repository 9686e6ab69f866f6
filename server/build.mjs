// Builds the npm package in server/dist: one ES module per source file (esbuild, with the version
// stamped in as the bundles have it) and their declarations (tsc). `npm pack` runs it (prepack).
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const sources = readdirSync('src', { recursive: true })
    .filter(file => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map(file => `./src/${file}`);

rmSync('dist', { recursive: true, force: true });
await esbuild.build({
    absWorkingDir: process.cwd(),
    entryPoints: sources,
    outdir: 'dist',
    outbase: 'src',
    bundle: false,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    define: { __MCP_TASKS_VERSION__: JSON.stringify(version) },
});
// The gateway's MCP SDK client, bundled into its module (zod apart, a dependency already): `--wrap`
// works from `npx -y @mcp-tasks/server` with no second package to name, and the rest of the
// package never loads it. Its CommonJS dependencies get a require of their own.
await esbuild.build({
    absWorkingDir: process.cwd(),
    entryPoints: ['./src/gateway/sdkClient.ts'],
    outfile: 'dist/gateway/sdkClient.js',
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: ['zod', 'zod/*'],
    banner: { js: "import { createRequire as __mcpTasksRequire } from 'node:module'; const require = __mcpTasksRequire(import.meta.url);" },
    logLevel: 'warning',
});
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
