import type { ToolDefinition } from '../../tools/types.js';
import { contentFixtures } from './content.js';
import { inputFixtures } from './input.js';
import { sessionInputFixtures } from './sessionInput.js';
import { taskFixtures } from './tasks.js';

/**
 * The tools the official conformance suite calls, for `--conformance-fixtures` only: listed first
 * (the suite calls the first listed tool with no arguments), never in the default tool list.
 * `onToolsChanged` announces a tool-list change (test_trigger_tool_change).
 */
export function conformanceFixtures(onToolsChanged: () => void): ToolDefinition[] {
    return [...contentFixtures(onToolsChanged), ...inputFixtures(), ...sessionInputFixtures(), ...taskFixtures()];
}
