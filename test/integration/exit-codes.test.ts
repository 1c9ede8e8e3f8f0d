// Exit codes a CI step can trust (issue 35), on the suite's real Temporal dev server with the in-process worker:
// a server check that blocks the launch (`max_cpi` in EUR, the sandbox prices in USD) makes
// `plan --detailed-exitcode` exit 3; `apply` of that study, whose only target group ends `gate_blocked`, exits 4
// and says `not converged` instead of `converged`; and a fielding control its workflow refuses (`pause` of a target
// group without a fielding run) exits 1 with the workflow's refusal instead of "requested".
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { quickLaunchFields } from '../helpers/study-yaml';
import { writeStudy } from './harness';

const STUDY = 'exit-codes';

const studyYaml = `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Exit codes
  project_customer_reference_number: PO-EXIT-CODES
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/exit-codes?rid=[%RID%]
    filling_goal: 100
    launch: { mode: auto, max_cpi: { value: "50.00", currency_code: EUR } }
`;

describe('exit codes over a launch gate that holds', () => {
  const t = useTestStack('exit-codes');
  let file = '';
  beforeAll(() => {
    file = writeStudy(t.dir, 'study.yaml', studyYaml);
  });

  it('plan --detailed-exitcode exits 3 over the blocking price check', async () => {
    const planned = await t.cli(['plan', file, '--detailed-exitcode']);
    expect(planned.stdout).toMatch(/✗ price: BLOCKING: .*EUR/);
    expect(planned.code, planned.stdout + planned.stderr).toBe(3);
    // The same decision from the JSON's structured outcome.
    const json = JSON.parse((await t.cli(['plan', file, '--json'])).stdout) as { studies: { checks: { key: string; checks: { name: string; outcome: string }[] }[] }[] };
    expect(json.studies[0].checks.find((c) => c.key === 'us')?.checks.find((c) => c.name === 'price')?.outcome).toBe('blocking');
  });

  it('apply exits 4 when its only target group ends gate_blocked, and does not say converged', async () => {
    const applied = await t.cli(['apply', file, '--timeout', '120']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(4);
    expect(applied.stdout).toMatch(/us\s+gate_blocked/);
    expect(applied.stdout).toContain('not converged: 1 target group(s) gate-blocked (us)');
    expect(applied.stdout).toMatch(/ {2}us launch: gate blocked: .*EUR/);
    expect(applied.stdout).not.toMatch(/study exit-codes\s+converged/);
    const status = await t.status('1001', STUDY);
    expect(status.phase).toBe('converged');
    expect(status.targetGroups.us.phase).toBe('gate_blocked');
    const json = JSON.parse((await t.cli(['status', file, '--json'])).stdout) as { targetGroups: Record<string, { phase: string }> };
    expect(json.targetGroups.us.phase).toBe('gate_blocked');
  });

  it('a fielding control its workflow refuses exits 1 with the refusal', async () => {
    const paused = await t.cli(['fielding', 'pause', file, '--target-group', 'us']);
    expect(paused.code, paused.stdout + paused.stderr).toBe(1);
    expect(paused.stderr).toContain('error: cannot pause: the target group has no fielding run yet (it is gate_blocked)');
    expect(paused.stdout).toBe('');
    const json = await t.cli(['fielding', 'pause', file, '--target-group', 'us', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ targetGroup: 'us', action: 'pause', outcome: 'refused', phase: 'gate_blocked' });
    const unknown = await t.cli(['fielding', 'pause', file, '--target-group', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no target group "nope" in study exit-codes');
  });
});
