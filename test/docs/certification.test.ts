import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPECTED_OUTCOMES } from '../conformance/expected-outcomes.js';
import {
  FAPI2_DISCOVERY_MODULE,
  FAPI2_MODULES,
  FAPI2_PLAN_ID,
} from '../conformance/modules/fapi2/registry.js';
import * as plans from '../conformance/support/plans.js';
import { ROOT } from '../server/support.js';

const PAGE = readFileSync(join(ROOT, 'docs/certification.md'), 'utf8');
const section = (heading: string) => PAGE.split(`## ${heading}`)[1]?.split('\n## ')[0] ?? '';

/** docs/certification.md tells what test/conformance/ runs and finds, no more and no less. */
describe('docs/certification.md', () => {
  const allPlans = Object.values(plans).filter(
    (value): value is plans.Plan =>
      typeof value === 'object' && value !== null && 'entries' in value,
  );

  it('lists every plan and every module the tests reproduce', () => {
    const table = section('Module by module');
    for (const plan of allPlans) {
      expect(section('The profiles')).toContain(`\`${plan.id}\``);
      for (const { module } of plan.entries) expect(table).toContain(`| \`${module}\` |`);
    }
  });

  it('lists every module of the FAPI 2.0 plan the tests reproduce', () => {
    const fapi2 = section('FAPI 2.0 Security Profile');
    expect(fapi2).toContain(`\`${FAPI2_PLAN_ID}\``);
    for (const module of [FAPI2_DISCOVERY_MODULE, ...FAPI2_MODULES.map(([id]) => id)])
      expect(fapi2).toContain(`| \`${module}\` |`);
  });

  it('reports every warning and skip the tests expect, and only those', () => {
    const remains = section('What remains: warnings and skips');
    const reported = [...remains.matchAll(/^\| `([\w-]+)` \|/gm)].map(([, module]) => module);
    expect(new Set(reported)).toEqual(new Set(EXPECTED_OUTCOMES.map((outcome) => outcome.module)));
    for (const outcome of EXPECTED_OUTCOMES) {
      for (const condition of outcome.warnings ?? []) expect(remains).toContain(`\`${condition}\``);
      if (outcome.skipped) expect(remains).toMatch(new RegExp(`\`${outcome.module}\` \\| skipped`));
    }
  });
});
