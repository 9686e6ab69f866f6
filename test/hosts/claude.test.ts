import { hostSuite } from './hostSuite.js';

hostSuite('claude');
