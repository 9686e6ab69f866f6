/** The official MCP conformance tool (@modelcontextprotocol/conformance, a pinned devDependency): where it is and how to read what it wrote. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const PACKAGE_JSON = resolve(__dirname, '../../node_modules/@modelcontextprotocol/conformance/package.json');

/** The tool's entry script, run with `node CONFORMANCE server --url … -o DIR`. */
export const CONFORMANCE = join(dirname(PACKAGE_JSON), (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { bin: Record<string, string> }).bin.conformance!);

/** One check of a scenario, as the tool records it. */
export interface Check {
    id: string;
    status: string;
    description?: string;
    errorMessage?: string;
    details?: unknown;
}

/** Each scenario's checks, from the result folders (`server-<scenario>-<timestamp>/checks.json`). */
export function readResults(dir: string): Map<string, Check[]> {
    const byScenario = new Map<string, Check[]>();
    for (const entry of readdirSync(dir)) {
        const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
        if (scenario) {
            byScenario.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
        }
    }
    return byScenario;
}
