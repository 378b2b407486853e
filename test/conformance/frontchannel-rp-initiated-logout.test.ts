import { OidccFrontChannelRpInitiatedLogout } from './modules/logout.js';
import { describeChromiumPlan } from './support/chromium-plan.js';
import { FRONTCHANNEL_RP_INITIATED_LOGOUT } from './support/plans.js';

/**
 * oidcc-frontchannel-rp-initiated-logout-certification-test-plan: its logout module runs in
 * Chromium, where the logout page's frames load and its script goes on to the relying party.
 */
describeChromiumPlan(
  FRONTCHANNEL_RP_INITIATED_LOGOUT,
  (context) => new OidccFrontChannelRpInitiatedLogout(context),
  'frontchannel',
);
