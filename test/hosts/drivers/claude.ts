/** Claude Code `claude -p`, pointed at the scripted model by ANTHROPIC_BASE_URL. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Driver, entryCommand, SERVER_NAME } from './driver.js';

export const claude: Driver = ({ installed, dirs, modelUrl, server, prompt, env }) => {
    const mcpConfig = join(dirs.root, 'mcp.json');
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER_NAME]: { type: 'stdio', command: server.command, args: server.args } } }));
    const args = [
        '-p',
        prompt,
        '--mcp-config',
        mcpConfig,
        '--strict-mcp-config',
        // Allows every tool of our server without asking; --dangerously-skip-permissions refuses to run as root.
        '--allowedTools',
        `mcp__${SERVER_NAME}`,
        '--model',
        'claude-sonnet-4-5',
        '--output-format',
        'text',
    ];
    return {
        ...entryCommand(installed, args),
        env: {
            ...env,
            ANTHROPIC_BASE_URL: modelUrl,
            ANTHROPIC_API_KEY: 'sk-ant-scripted',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            // Offer MCP tools to the model directly instead of behind ToolSearch, so one scripted
            // turn can call one.
            ENABLE_TOOL_SEARCH: 'false',
        },
    };
};
