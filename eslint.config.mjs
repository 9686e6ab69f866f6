// Typed linting: async mistakes are errors; server code never writes to the console (stdout is the protocol).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['**/dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test/vscode-host/selftest/**', '**/*.mjs', '**/*.js'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
        rules: {
            '@typescript-eslint/no-floating-promises': [
                'error',
                { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
            ],
            '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
            '@typescript-eslint/no-non-null-assertion': 'off',
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
            eqeqeq: ['error', 'always'],
            curly: 'error',
        },
    },
    {
        files: ['server/src/**/*.ts'],
        rules: { 'no-console': 'error' },
    },
    {
        files: ['extension/**/*.ts'],
        rules: {
            'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/src/**', '../server/**'], message: 'Import the server only through @mcp-tasks/server.' }] }],
        },
    },
);
