import { confirmDeleteTool } from './confirmDelete.js';
import { deployTool } from './deploy.js';
import { deployStepTool } from './deployStep.js';
import { createExternalJobTool } from './externalJob.js';
import { failingJobTool } from './failingJob.js';
import { greetTool } from './greet.js';
import { slowComputeTool } from './slowCompute.js';
import type { ToolDefinition } from '../tools/types.js';
import { writeHaikuTool } from './writeHaiku.js';

/** Every tool the server ships, in the order `tools/list` shows them (deploy_step is hidden: deploy's sub-task). */
export function defaultTools(): ToolDefinition[] {
    return [greetTool, slowComputeTool, failingJobTool, confirmDeleteTool, writeHaikuTool, createExternalJobTool(), deployTool, deployStepTool];
}
