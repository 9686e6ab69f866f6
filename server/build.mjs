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
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
