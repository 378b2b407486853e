import { OidccSessionManagementRpInitiatedLogout } from './modules/session-management.js';
import { describeChromiumPlan } from './support/chromium-plan.js';
import { SESSION_MANAGEMENT } from './support/plans.js';

/**
 * oidcc-session-management-certification-test-plan: its logout module runs in Chromium, where
 * the check_session_iframe's script runs.
 */
describeChromiumPlan(
  SESSION_MANAGEMENT,
  (context) => new OidccSessionManagementRpInitiatedLogout(context),
);
