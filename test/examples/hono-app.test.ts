import { start } from '../../examples/hono-app/src/app.js';
import { exampleSuite } from './example-suite.js';

exampleSuite('Hono', start);
