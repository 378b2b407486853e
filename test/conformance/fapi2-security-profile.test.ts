import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAPI2_DISCOVERY_MODULE,
  FAPI2_MODULES,
  FAPI2_PLAN_ID,
  runFapi2Module,
} from './modules/fapi2/registry.js';
import { SuiteBrowser } from './support/browser.js';
import { type Fapi2Op, startFapi2Op } from './support/fapi2-op.js';
import { expectedOutcome } from './support/run-plan.js';

/**
 * The OpenID Foundation's FAPI 2.0 Security Profile plan, module by module, against a realm of
 * `"profile": "fapi2"` (docs/fapi2.md): a module passes when none of its FAILURE-level conditions
 * failed, and its warnings are exactly those test/conformance/expected-outcomes.ts lists.
 */
describe(`${FAPI2_PLAN_ID} [plain_fapi] [private_key_jwt] [dpop] [openid_connect] [unsigned]`, () => {
  let op: Fapi2Op;
  let tester: SuiteBrowser;
  beforeAll(async () => {
    op = await startFapi2Op();
    tester = new SuiteBrowser(op);
  });
  afterAll(() => op?.close());

  const modules = [FAPI2_DISCOVERY_MODULE, ...FAPI2_MODULES.map(([id]) => id)];
  it.each(modules)('%s', async (module) => {
    expect(await runFapi2Module(op, tester, module)).toEqual(
      expectedOutcome(FAPI2_PLAN_ID, { module }),
    );
    expect(op.reported).toEqual([]);
  });
});
