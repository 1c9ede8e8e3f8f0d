// `studyflow plan` prints exactly what apply runs: the program's steps of each target group (plan --json)
// equal the steps the study and the target groups' workflows ran (the study's status), on a real Temporal
// server and the sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudyProgram, TargetGroupStep } from '../../plan/program';
import type { StudyStatus } from '../../workflows/messages';
import { syntheticRsids } from '../helpers/respondent-ids';
import { eventually, startTestStack, threeMarketStudy, writeStudy, type TestStack } from './harness';

const STUDY = 'plan-equals-apply';
// us and uk exclude a list (their own workflows launch them), de joins an exclusion group (the study
// launches it), fr has nothing before its launch (its draft batch launches it), jp launches at a moment two
// days ahead (its workflow schedules it in the exchange).
const LAUNCH_AT = new Date(Date.now() + 2 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const YAML = `${threeMarketStudy({ studyId: STUDY, title: 'Plan equals apply', reference: 'PO-PLAN-APPLY', urlPrefix: 'pea', waveMembers: ['us', 'de'] })}  fr:
    locale: fr_FR
    live_url: https://survey.example.com/s/pea-fr?rid=[%RID%]
    filling_goal: 30
  jp:
    locale: ja_JP
    live_url: https://survey.example.com/s/pea-jp?rid=[%RID%]
    filling_goal: 30
    launch: { at: "${LAUNCH_AT}" }
`;

/** The steps a target group ran: the study's, up to its hand-over, then its workflow's. */
function ran(status: StudyStatus, key: string): TargetGroupStep[] {
  return [...(status.program?.ran[key] ?? []), ...(status.targetGroups[key]?.steps ?? [])];
}

describe('studyflow plan prints exactly what apply runs', () => {
  let t: TestStack;
  let file: string;
  beforeAll(async () => {
    t = await startTestStack('plan-equals-apply');
    fs.writeFileSync(path.join(t.dir, 'past.txt'), `${syntheticRsids('plan-equals-apply', 20).join('\n')}\n`);
    file = writeStudy(t.dir, 'study.yaml', YAML);
  });
  afterAll(async () => t?.stop());

  it('the steps each target group ran are the steps plan printed for it', async () => {
    const planned = await t.cli(['plan', file, '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const program = (JSON.parse(planned.stdout) as { studies: { program: StudyProgram }[] }).studies[0].program;
    // Every kind of launcher is in it.
    expect(Object.fromEntries(program.targetGroups.map((p) => [p.key, p.launch.by]))).toEqual({ us: 'target_group', uk: 'target_group', de: 'study', fr: 'draft_batch', jp: 'target_group' });
    expect(program.targetGroups.find((p) => p.key === 'jp')?.steps.at(-1)).toEqual({ kind: 'schedule_launch', at: LAUNCH_AT, idempotencyKey: `study/1001/${STUDY}/tg/jp/schedule-launch/{attempt}` });

    const applied = await t.cli(['apply', file]);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toContain('converged');
    // fr's workflow starts once the revision settled (apply returns then): wait for its hand-over.
    const status = await eventually(async () => {
      const s = await t.status('1001', STUDY);
      return ran(s, 'fr').some((step) => step.kind === 'hand_over') ? s : undefined;
    });
    expect(status.program?.revision).toBe(program.revision);
    for (const tg of program.targetGroups) expect(ran(status, tg.key), tg.key).toEqual(tg.steps);
    expect(Object.fromEntries(Object.values(status.targetGroups).map((tg) => [tg.key, tg.phase]))).toEqual({ us: 'live', uk: 'live', de: 'live', fr: 'live', jp: 'scheduled' });

    // Applied again: plan says nothing runs (every workflow runs and nothing changed), and apply runs nothing.
    const again = JSON.parse((await t.cli(['plan', file, '--json'])).stdout) as { studies: { program: StudyProgram }[] };
    expect(again.studies[0].program.targetGroups.map((tg) => tg.steps)).toEqual([[], [], [], [], []]);
    const reapplied = await t.cli(['apply', file]);
    expect(reapplied.code, reapplied.stderr).toBe(0);
    const after = await t.status('1001', STUDY);
    expect(after.program).toEqual({ revision: again.studies[0].program.revision, ran: {} });

    // A live change: de's goal raised (checked with feasibility, then written in place) and fr paused, by their workflows.
    fs.writeFileSync(file, YAML.replace('filling_goal: 40', 'filling_goal: 45').replace('filling_goal: 30\n', 'filling_goal: 30\n    fielding: paused\n'));
    const live = JSON.parse((await t.cli(['plan', file, '--json'])).stdout) as { studies: { program: StudyProgram }[] };
    const liveProgram = live.studies[0].program;
    const stepsOf = (key: string) => liveProgram.targetGroups.find((p) => p.key === key)?.steps.map((s) => s.kind);
    expect(stepsOf('de')).toEqual(['hand_over', 'check_live', 'update_live', 'read_state']);
    expect(stepsOf('fr')).toEqual(['hand_over', 'fielding', 'read_state']);
    const changed = await t.cli(['apply', file]);
    expect(changed.code, changed.stderr + changed.stdout).toBe(0);
    const changedStatus = await t.status('1001', STUDY);
    expect(changedStatus.program?.revision).toBe(liveProgram.revision);
    for (const tg of liveProgram.targetGroups) {
      // A workflow not handed this revision ran nothing of it (its status still lists the steps of its last one).
      if (tg.steps.length === 0) expect(changedStatus.program?.ran[tg.key], tg.key).toBeUndefined();
      else expect(ran(changedStatus, tg.key), tg.key).toEqual(tg.steps);
    }
    expect(changedStatus.targetGroups.fr.phase).toBe('paused');
  });
});
