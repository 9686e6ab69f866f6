/**
 * The MCP hosts the matrix runs, pinned: the versions whose behaviour
 * /work/shared/reference/host-timeouts.md describes. Each comes from npm with its native binary in a
 * platform package (an optional dependency), so nothing downloads from elsewhere.
 */
export type HostName = 'claude' | 'codex' | 'gemini' | 'opencode';

export interface HostPackage {
    name: HostName;
    /** What `npm install` gets. */
    spec: string;
    version: string;
    /** The entry point, relative to the install folder: a native binary, or a script for `node`. */
    entry: string;
    /** True when `entry` is a JavaScript file to run with our Node (the rest are executables). */
    runWithNode: boolean;
    /**
     * Where the host hands the model our server's instructions (measured), or false if it does not:
     * the instructions test asserts on them only where they are handed over.
     */
    instructionsIn: string | false;
    /**
     * What the host's own MCP client answers, never asking the server, to a plain call of a tool
     * whose `taskSupport` is `required` (measured), or false where the call reaches the server.
     */
    refusesRequiredTask: RegExp | false;
}

export const HOSTS: Record<HostName, HostPackage> = {
    claude: {
        name: 'claude',
        spec: '@anthropic-ai/claude-code@2.1.328',
        version: '2.1.328',
        // The platform package's own binary: the wrapper's bin/claude.exe is only a copy of it made by
        // its postinstall, and running the original leaves nothing to that step.
        entry: 'node_modules/@anthropic-ai/claude-code-linux-x64/claude',
        runWithNode: false,
        instructionsIn: 'a system-reminder in the first user message',
        refusesRequiredTask: false,
    },
    codex: {
        name: 'codex',
        spec: '@openai/codex@0.169.0',
        version: '0.169.0',
        entry: 'node_modules/@openai/codex/bin/codex.js',
        runWithNode: true,
        instructionsIn: 'the description of our tools\' namespace',
        refusesRequiredTask: false,
    },
    gemini: {
        name: 'gemini',
        spec: '@google/gemini-cli@0.61.0',
        version: '0.61.0',
        entry: 'node_modules/@google/gemini-cli/bundle/gemini.js',
        runWithNode: true,
        instructionsIn: 'the loaded context of the first user turn',
        refusesRequiredTask: false,
    },
    opencode: {
        name: 'opencode',
        spec: 'opencode-ai@1.18.33',
        version: '1.18.33',
        entry: 'node_modules/opencode-linux-x64/bin/opencode',
        runWithNode: false,
        instructionsIn: 'the system message',
        // Its bundled MCP SDK's Client.callTool checks the listed taskSupport and throws before sending.
        refusesRequiredTask: /MCP error -32600: Tool "failing_job" requires task-based execution/,
    },
};
