import { RP_INITIATED_LOGOUT } from './support/plans.js';
import { describePlan } from './support/run-plan.js';

describePlan(RP_INITIATED_LOGOUT);
