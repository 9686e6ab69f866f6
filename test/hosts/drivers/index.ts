import type { HostName } from '../hostList.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import type { Driver } from './driver.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';

export const DRIVERS: Record<HostName, Driver> = { claude, codex, gemini, opencode };
