import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInChromium } from '../../support/chromium.js';
import { SuiteBrowser } from './browser.js';
import { ModuleRun } from './checks.js';
import { ChromiumSuiteBrowser } from './chromium-browser.js';
import { type CertificationOp, type LogoutChannel, startCertificationOp } from './op.js';
import type { Plan, PlanEntry } from './plans.js';
import { expectedOutcome, runModule } from './run-plan.js';
import type { ModuleContext, ServerTest } from './server-test.js';
import { variantName } from './state.js';

/**
 * A plan of two modules: its discovery module over HTTP, and a module that needs a real browser
 * (a script of the provider's pages must run), in Chromium, built by `create`.
 */
export function describeChromiumPlan(
  plan: Plan,
  create: (context: ModuleContext<ChromiumSuiteBrowser>) => ServerTest<ChromiumSuiteBrowser>,
  channel?: LogoutChannel,
): void {
  describeInChromium(plan.id, (browser) => {
    let op: CertificationOp;
    beforeAll(async () => {
      op = await startCertificationOp(channel);
    });
    afterAll(() => op?.close());

    const [discovery, inBrowser] = plan.entries as [PlanEntry, PlanEntry];

    it(`${discovery.module} ${variantName(discovery.variant)}`, async () => {
      expect(await runModule(op, new SuiteBrowser(op), discovery)).toEqual(
        expectedOutcome(plan.id, discovery),
      );
    });

    it(`${inBrowser.module} ${variantName(inBrowser.variant)}`, async () => {
      const chromium = await ChromiumSuiteBrowser.start(browser(), op);
      const run = new ModuleRun();
      const variant = inBrowser.variant;
      if (!variant) throw new Error('the module runs with a variant');
      const module = create({ op, variant, run, browser: chromium });
      const outcome = await run.run(() => module.start());
      await chromium.close();
      expect(outcome).toEqual(expectedOutcome(plan.id, inBrowser));
      expect(op.reported).toEqual([]);
    }, 60_000);
  });
}
