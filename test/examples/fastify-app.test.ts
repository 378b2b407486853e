import { start } from '../../examples/fastify-app/src/app.js';
import { exampleSuite } from './example-suite.js';

exampleSuite('Fastify', start);
