import { hostSuite } from './hostSuite.js';

hostSuite('opencode');
