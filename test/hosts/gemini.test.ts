import { hostSuite } from './hostSuite.js';

hostSuite('gemini');
