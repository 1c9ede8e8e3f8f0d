// Issue 28 on the embedded stack (real Temporal, the sandbox): launched target groups converge from the study file.
// In-place changes (filling goal, end date) without a draft write or a new target group; the declared fielding
// state held across re-applies; a removed target group kept, then completed; a change the exchange cannot make
// named with exit code 4; and every re-apply after a change makes 0 writes (the sandbox's request log).
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { writeCalls, writeStudy } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

const STUDY = 'live-flow';
const END = '2027-03-01T00:00:00Z';
const LATER = '2027-03-08T00:00:00Z';

interface Market {
  key: string;
  locale: string;
  goal: number;
  end?: string;
  fielding?: 'live' | 'paused' | 'completed';
}

function studyYaml(markets: Market[], removed?: 'keep' | 'complete'): string {
  const tgs = markets
    .map(
      (m) => `  ${m.key}:
    locale: ${m.locale}
    live_url: https://survey.example.com/s/lf-${m.key}?rid=[%RID%]
    filling_goal: ${m.goal}
    end_fielding_at: ${m.end ?? END}
${m.fielding ? `    fielding: ${m.fielding}\n` : ''}`,
    )
    .join('');
  return `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Live flow
  project_customer_reference_number: PO-LIVE-FLOW
${removed ? `removed_target_groups: ${removed}\n` : ''}defaults:
${quickLaunchFields('  ')}
target_groups:
${tgs}`;
}

const US: Market = { key: 'us', locale: 'en_US', goal: 200 };
const UK: Market = { key: 'uk', locale: 'en_GB', goal: 100 };
const DE: Market = { key: 'de', locale: 'de_DE', goal: 80 };

describe('live target groups converge from the study file', () => {
  const t = useTestStack('live-flow');
  let file = '';

  /** Writes the study file, applies it and returns the exit code, the output and the write calls it made. */
  async function apply(markets: Market[], removed?: 'keep' | 'complete') {
    file = writeStudy(t.dir, 'study.yaml', studyYaml(markets, removed));
    const before = t.stack.sandbox.requests().length;
    const result = await t.cli(['apply', file, '--timeout', '60']);
    const writes = writeCalls(t.stack.sandbox.requests().slice(before)).map((w) => `${w.method} ${w.route}`);
    return { ...result, writes };
  }
  const tgOf = (key: string) => Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${STUDY}_${key}`)!;
  const runOf = (key: string) => Object.values(t.stack.sandbox.state().fielding_runs).find((r) => r.target_group_id === tgOf(key).id)!;
  const targetGroupCount = () => Object.values(t.stack.sandbox.state().target_groups).length;

  it('launches the study', async () => {
    const first = await apply([US, UK, DE]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('converged');
    expect([tgOf('us').status, tgOf('uk').status, tgOf('de').status]).toEqual(['live', 'live', 'live']);
    const again = await apply([US, UK, DE]);
    expect(again.code).toBe(0);
    expect(again.writes).toEqual([]);
  });

  it('raises the filling goal and moves the end date in place: no draft write, no new target group, then 0 writes', async () => {
    const count = targetGroupCount();
    const changed = { ...US, goal: 300, end: LATER };
    file = writeStudy(t.dir, 'study.yaml', studyYaml([changed, UK, DE]));
    const planned = await t.cli(['plan', file, '--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(2);
    expect(planned.stdout).toMatch(/update_profile_filling_goal: filling_goal 200 -> 300/);
    expect(planned.stdout).toMatch(/update_fielding_run: end_fielding_at/);
    // The raise is checked now, as the workflow checks it before the write: the exchange's answer, judged by the gate's rules.
    expect(planned.stdout).toMatch(/raising filling_goal 200 -> 300[^\n]*: (feasible|infeasible) \((up to \d+ completes|no completes range)\)(, suggested price \d+\.\d+ [A-Z]{3})?; (may be written|held: )/);

    const result = await apply([changed, UK, DE]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('converged');
    expect(result.writes.sort()).toEqual([
      expect.stringMatching(/^PUT .*\/fielding-runs\/\{[a-z_]+\}$/),
      expect.stringMatching(/^PUT .*\/profiles\/completes-goal$/),
    ]);
    expect(tgOf('us').filling_goal).toBe(300);
    expect(Date.parse(runOf('us').end_fielding_at)).toBe(Date.parse(LATER));
    expect(targetGroupCount()).toBe(count);

    const again = await apply([changed, UK, DE]);
    expect(again.code).toBe(0);
    expect(again.writes).toEqual([]);
    US.goal = 300;
    US.end = LATER;
  });

  it('holds fielding: paused, live and completed across re-applies', async () => {
    const paused = await apply([US, { ...UK, fielding: 'paused' }, DE]);
    expect(paused.code, paused.stdout + paused.stderr).toBe(0);
    expect(paused.writes).toEqual([expect.stringMatching(/^POST .*\/pause$/)]);
    expect(runOf('uk').status).toBe('paused');
    expect((await apply([US, { ...UK, fielding: 'paused' }, DE])).writes).toEqual([]);

    const resumed = await apply([US, { ...UK, fielding: 'live' }, DE]);
    expect(resumed.writes).toEqual([expect.stringMatching(/^POST .*\/resume$/)]);
    expect(runOf('uk').status).toBe('live');
    expect((await apply([US, { ...UK, fielding: 'live' }, DE])).writes).toEqual([]);

    const completed = await apply([US, UK, { ...DE, fielding: 'completed' }]);
    expect(completed.code, completed.stdout + completed.stderr).toBe(0);
    expect(completed.writes).toEqual([expect.stringMatching(/^POST .*\/complete$/)]);
    expect(runOf('de').status).toBe('completed');
    // Completed is final: the file that no longer says `fielding` leaves it completed, and writes nothing.
    expect((await apply([US, UK, { ...DE, fielding: 'completed' }])).writes).toEqual([]);
    expect((await apply([US, UK, DE])).writes).toEqual([]);
    expect(runOf('de').status).toBe('completed');
  });

  it('names a change the exchange cannot make and exits 4; plan --detailed-exitcode says 3', async () => {
    const moved = { ...UK, locale: 'en_IE' };
    file = writeStudy(t.dir, 'study.yaml', studyYaml([US, moved, DE]));
    const planned = await t.cli(['plan', file, '--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(3);
    const result = await apply([US, moved, DE]);
    expect(result.code, result.stdout + result.stderr).toBe(4);
    expect(result.stdout).toContain('not converged: 1 change(s) not applied');
    expect(result.stdout).toMatch(/uk locale: blocked: locale cannot change after the launch/);
    expect(result.stdout).not.toMatch(/study live-flow {2}converged/);
    expect(result.writes).toEqual([]);
    const json = await t.cli(['status', file, '--json']);
    expect(JSON.parse(json.stdout).unapplied).toEqual([{ targetGroup: 'uk', field: 'locale', reason: 'blocked', detail: expect.stringContaining('locale') }]);
  });

  it('keeps a removed target group under keep (named by the plan), completes it under complete, then writes nothing', async () => {
    file = writeStudy(t.dir, 'study.yaml', studyYaml([US, DE], 'keep'));
    const planned = await t.cli(['plan', file]);
    expect(planned.stdout).toMatch(/uk.*removed from the file; live in the exchange.*kept fielding, no longer managed/);
    const kept = await apply([US, DE], 'keep');
    expect(kept.code, kept.stdout + kept.stderr).toBe(0);
    expect(kept.writes).toEqual([]);
    expect(runOf('uk').status).toBe('live');

    const completed = await apply([US, DE], 'complete');
    expect(completed.code, completed.stdout + completed.stderr).toBe(0);
    expect(completed.writes).toEqual([expect.stringMatching(/^POST .*\/complete$/)]);
    expect(runOf('uk').status).toBe('completed');
    expect((await apply([US, DE], 'complete')).writes).toEqual([]);
  });
});

describe('a launched target group’s quota goals converge from the study file', () => {
  const t = useTestStack('live-quota');
  const quotaStudy = (men: number) => `format: studyflow/v1
study: live-quota
account: "1001"
business_unit: "2001"
project:
  name: Live quota
  project_customer_reference_number: PO-LIVE-QUOTA
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/lq?rid=[%RID%]
    filling_goal: 200
    end_fielding_at: ${END}
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - text: Men
            conditions: [{ object: selection, question_id: 43, option: "1" }]
            quota: { name: men, completes_goal: ${men} }
          - text: Women
            conditions: [{ object: selection, question_id: 43, option: "2" }]
            quota: { name: women, completes_goal: 100 }
`;
  async function apply(men: number) {
    const file = writeStudy(t.dir, 'study.yaml', quotaStudy(men));
    const before = t.stack.sandbox.requests().length;
    const result = await t.cli(['apply', file, '--timeout', '60']);
    return { ...result, writes: writeCalls(t.stack.sandbox.requests().slice(before)).map((w) => `${w.method} ${w.route}`) };
  }

  it('changes one quota goal in place with one goal write, then writes nothing', async () => {
    const first = await apply(100);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect((await apply(100)).writes).toEqual([]);
    const changed = await apply(120);
    expect(changed.code, changed.stdout + changed.stderr).toBe(0);
    expect(changed.stdout).toContain('converged');
    expect(changed.writes).toEqual([expect.stringMatching(/^PUT .*\/profiles\/completes-goal$/)]);
    // The exchange holds the new goal of that quota, and only of that one.
    const tg = Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === 'live-quota_us')!;
    const goals = JSON.stringify(tg.profiles);
    expect(goals).toMatch(/"name":"men"[^}]*"completes_goal":120|"completes_goal":120[^}]*"name":"men"/);
    expect(goals).toMatch(/"name":"women"[^}]*"completes_goal":100|"completes_goal":100[^}]*"name":"women"/);
    expect((await apply(120)).writes).toEqual([]);
  });
});
