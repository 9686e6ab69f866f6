// `node test/vscode-host/selftest.mjs`: runs the throwaway extension's suite in
// the code-server host. Exit code 0 means the harness itself works.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runVsCodeTests } from './run.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const code = await runVsCodeTests({
    extensionDevelopmentPath: join(here, 'selftest'),
    extensionTestsPath: join(here, 'selftest', 'suite', 'index.js'),
    env: { VSCODE_HOST_SELFTEST: 'yes' },
    screenshotDir: process.env.MCP_TASKS_VSCODE_SCREENSHOTS,
    timeoutMs: 5 * 60 * 1000,
});
process.exit(code);
