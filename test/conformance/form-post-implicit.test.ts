import { FORM_POST_IMPLICIT } from './support/plans.js';
import { describePlan } from './support/run-plan.js';

describePlan(FORM_POST_IMPLICIT);
