import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECTED_OUTCOMES } from '../expected-outcomes.js';
import { DISCOVERY_MODULES } from '../modules/discovery-modules.js';
import { SERVER_MODULES } from '../modules/registry.js';
import { SuiteBrowser } from './browser.js';
import { type ModuleOutcome, ModuleRun } from './checks.js';
import {
  type CertificationOp,
  CLIENTS,
  type LogoutChannel,
  REDIRECT_URI,
  startCertificationOp,
} from './op.js';
import type { Plan, PlanEntry } from './plans.js';
import { variantName } from './state.js';

/**
 * One test per module and variant of a plan, against one server for the whole file. A module
 * passes when no FAILURE-level condition failed; its WARNING-level findings and a skip must be
 * exactly those test/conformance/expected-outcomes.ts lists (and docs/certification.md reports),
 * so a new warning fails here, and so does one that went away without the page being updated.
 */
export function expectedOutcome(planId: string, entry: PlanEntry): ModuleOutcome {
  const expected = EXPECTED_OUTCOMES.find(
    (outcome) =>
      outcome.module === entry.module &&
      (outcome.plans === undefined || outcome.plans.includes(planId)) &&
      (outcome.responseTypes === undefined ||
        (entry.variant !== undefined &&
          outcome.responseTypes.includes(entry.variant.responseType))),
  );
  return {
    failures: [],
    warnings: (expected?.warnings ?? []).map((condition) => ({
      condition,
      message: expect.any(String) as unknown as string,
    })),
    ...(expected?.skipped
      ? { skipped: expect.stringMatching(expected.skipped) as unknown as string }
      : {}),
  };
}

/**
 * The modules whose instructions ask the tester to remove the provider's cookies first (to see a
 * login page), and those that sign out; every other module runs in the tester's one browser as the suite's do, signed
 * in (and keeping the new session a module's second login makes).
 */
const FRESH_BROWSER = new Set([
  'oidcc-display-page',
  'oidcc-display-popup',
  'oidcc-prompt-none-not-logged-in',
  'oidcc-login-hint',
  'oidcc-ui-locales',
]);

/** A browser signed in at the provider, as the tester's is after the first module. */
export async function signedInBrowser(op: CertificationOp): Promise<SuiteBrowser> {
  const browser = new SuiteBrowser(op);
  const query = new URLSearchParams({
    client_id: CLIENTS.basic.id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
  });
  const arrival = await browser.open(`${op.issuer}/authorize?${query}`);
  if (arrival.kind !== 'callback' || !arrival.query.code)
    throw new Error('the tester could not sign in');
  return browser;
}

export async function runModule(
  op: CertificationOp,
  tester: SuiteBrowser,
  entry: PlanEntry,
): Promise<ModuleOutcome> {
  const run = new ModuleRun();
  const readsMetadata = DISCOVERY_MODULES.get(entry.module);
  if (readsMetadata) return run.run(() => readsMetadata(op, run));
  const create = SERVER_MODULES.get(entry.module);
  if (!create || !entry.variant) throw new Error(`no module ${entry.module} with a variant`);
  const { variant } = entry;
  const fresh = FRESH_BROWSER.has(entry.module) || entry.module.includes('-logout');
  const browser = fresh ? new SuiteBrowser(op) : tester;
  return run.run(() => create({ op, variant, run, browser }).start());
}

/** `channel`: the logout channel the plan's static clients register, if any. */
export function describePlan(plan: Plan, channel?: LogoutChannel): void {
  describe(plan.id, () => {
    let op: CertificationOp;
    let tester: SuiteBrowser;
    beforeAll(async () => {
      op = await startCertificationOp(channel);
      tester = await signedInBrowser(op);
    });
    afterAll(() => op?.close());

    const cases = plan.entries.map(
      (entry) => [`${entry.module} ${variantName(entry.variant)}`, entry] as const,
    );
    it.each(cases)('%s', async (_name, entry) => {
      expect(await runModule(op, tester, entry)).toEqual(expectedOutcome(plan.id, entry));
      expect(op.reported).toEqual([]);
    });
  });
}
