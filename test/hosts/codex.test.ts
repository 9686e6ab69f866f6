import { hostSuite } from './hostSuite.js';

hostSuite('codex');
