import { start } from '../../examples/express-app/src/app.js';
import { exampleSuite } from './example-suite.js';

exampleSuite('Express', start);
