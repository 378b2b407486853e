import { BASIC } from './support/plans.js';
import { describePlan } from './support/run-plan.js';

describePlan(BASIC);
