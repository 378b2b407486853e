import { BACKCHANNEL_RP_INITIATED_LOGOUT } from './support/plans.js';
import { describePlan } from './support/run-plan.js';

describePlan(BACKCHANNEL_RP_INITIATED_LOGOUT, 'backchannel');
