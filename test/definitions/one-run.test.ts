// `validate` reports every problem of every file in one run (issue 35): a target group with a structure error
// (SF2xxx) is not checked as a whole, but the rules whose fields all parsed still run, so an amount in another
// currency (SF4505) comes in the same run, not only once the structure error is fixed.
import { describe, expect, it } from 'vitest';
import { loadStudyText } from '../../definitions';

const study = (fillingGoal: string, guards = `      spend: { spend_above: { value: "100.00", currency_code: GBP } }\n`) => `format: studyflow/v1
study: one-run
account: "1001"
business_unit: "2001"
project_manager_id: 4f1c2f4e-6a52-4b8e-9a31-2d6f1f0b7c11
budget: { value: "1000.00", currency_code: USD }
project:
  name: One run
defaults:
  locale: en_US
  expected_incidence_rate: 0.5
  expected_length_of_interview_minutes: 10
target_groups:
  us:
    live_url: https://survey.example.com/s/x?rid=[%RID%]
    filling_goal: ${fillingGoal}
    launch: { max_cpi: { value: "5.00", currency_code: EUR } }
    guards:
${guards}`;

const codes = async (text: string) => (await loadStudyText(text, '/virtual/one-run.yaml', { env: {} })).diagnostics.map((d) => `${d.line}:${d.column} ${d.code}`);

describe('one run reports the structure errors and the rules that could run', () => {
  it('SF4505 of launch.max_cpi and of a guard beside an SF2003 in the same target group', async () => {
    expect(await codes(study('many'))).toEqual(['16:19 SF2003', '17:56 SF4505', '19:63 SF4505']);
    // The same SF4505 diagnostics as once the structure error is fixed.
    expect((await codes(study('100'))).filter((c) => c.endsWith('SF4505'))).toEqual(['17:56 SF4505', '19:63 SF4505']);
  });

  it('skips the guard rules when a field they read is the broken one (no guess over a broken guard)', async () => {
    const broken = await codes(study('many', `      spend: { spend_above: { value: "100.00", currency_code: GBP }, colour: red }\n`));
    expect(broken.some((c) => c.endsWith('SF4505') && c.startsWith('19:'))).toBe(false);
    expect(broken.filter((c) => /SF2\d{3}$/.test(c)).length).toBeGreaterThanOrEqual(2);
  });
});
