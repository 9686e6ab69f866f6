import { confirmDeleteTool } from './confirmDelete.js';
import { createExternalJobTool } from './externalJob.js';
import { failingJobTool } from './failingJob.js';
import { greetTool } from './greet.js';
import { slowComputeTool } from './slowCompute.js';
import type { ToolDefinition } from './types.js';
import { writeHaikuTool } from './writeHaiku.js';

/** Every tool the server ships, in the order `tools/list` shows them. */
export function defaultTools(): ToolDefinition[] {
    return [greetTool, slowComputeTool, failingJobTool, confirmDeleteTool, writeHaikuTool, createExternalJobTool()];
}
