// Guards in the study file: the study's, defaults' and a target group's merged by name (the lower level
// replaces a guard as a whole, `false` switches one off), defaults applied, the budget kept as written, and
// the durations of no_completes_for read as the watch will count them.
import { describe, expect, it } from 'vitest';
import { loadStudyText } from '../../definitions';
import { guardDurationMs } from '../../definitions/periods';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

const STUDY = `format: studyflow/v1
study: guard-study
account: "1001"
business_unit: "2001"
project:
  name: guard study
budget: { value: "2500.00", currency_code: USD }
guards:
  stalled: { no_completes_for: P2D }
  cpi_cap: { cost_per_complete_above: { value: "6.00", currency_code: USD } }
defaults:
  guards:
    low_incidence: { incidence_below: 0.5, min_entrants: 200 }
    cpi_cap: { cost_per_complete_above: { value: "5.00", currency_code: USD } }
target_groups:
  us:
${GROUP}    guards:
      cpi_cap: { cost_per_complete_above: { value: "7.50", currency_code: USD }, action: notify }
      stalled: false
  uk:
${GROUP}  ca:
${GROUP}    guards:
      drop: { drop_off_above: 0.4 }
notify:
  - url: \${OPS_WEBHOOK_URL}
`;

describe('guards in the study file', () => {
  it('merges the study, defaults and the target group by name; false switches a guard off', async () => {
    const { study, diagnostics } = await loadStudyText(STUDY, '/virtual/guard-study.yaml', { env: {} });
    expect(diagnostics).toEqual([]);
    const guards = study!.study.target_groups;
    expect(guards.us.guards).toEqual({
      low_incidence: { incidence_below: 0.5, min_entrants: 200, action: 'pause' },
      cpi_cap: { cost_per_complete_above: { value: '7.50', currency_code: 'USD' }, action: 'notify' },
    });
    expect(guards.uk.guards).toEqual({
      stalled: { no_completes_for: 'P2D', action: 'pause' },
      cpi_cap: { cost_per_complete_above: { value: '5.00', currency_code: 'USD' }, action: 'pause' },
      low_incidence: { incidence_below: 0.5, min_entrants: 200, action: 'pause' },
    });
    expect(Object.keys(guards.ca.guards).sort()).toEqual(['cpi_cap', 'drop', 'low_incidence', 'stalled']);
    expect(study!.study.budget).toEqual({ value: '2500.00', currency_code: 'USD' });
    expect(guards.us.launch.require_forecast_before_end).toBe(false);
  });

  it('locates a study-level guard error once, at the study level, though every target group has the guard', async () => {
    const text = STUDY.replace('stalled: { no_completes_for: P2D }', 'stalled: { no_completes_for: PT10M }');
    const { study, diagnostics } = await loadStudyText(text, '/virtual/guard-study.yaml', { env: {} });
    expect(study).toBeUndefined();
    expect(diagnostics.map((d) => `${d.code} ${d.line} ${d.path.join('.')}`)).toEqual(['SF4503 9 guards.stalled.no_completes_for']);
  });

  it('reads guard durations in weeks, days, hours, minutes and seconds, and nothing else', () => {
    expect(guardDurationMs('P2D')).toBe(2 * 86_400_000);
    expect(guardDurationMs('PT36H')).toBe(36 * 3_600_000);
    expect(guardDurationMs('P1DT12H30M15S')).toBe(86_400_000 + 12 * 3_600_000 + 30 * 60_000 + 15_000);
    expect(guardDurationMs('P1W')).toBe(7 * 86_400_000);
    for (const bad of ['P1M', 'P1Y', 'P', 'PT', 'P1DT', '2D', 'P1.5D']) expect(guardDurationMs(bad), bad).toBeUndefined();
  });
});
