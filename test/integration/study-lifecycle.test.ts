import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, writeCalls, writeStudy, type TestStack } from './harness';
import { PROGRESS_INTERVAL_MS, PROGRESS_PACING_SUMMARY } from '../../workflows/target-group-workflow';
import { syntheticRsid, syntheticRsids } from '../helpers/respondent-ids';

const RSIDS = syntheticRsids('lifecycle', 250);
const FEW = [syntheticRsid('lifecycle-few', 1), syntheticRsid('lifecycle-few', 2)];

function study(id: string, targetGroups: string, extra = ''): string {
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Lifecycle ${id}
  project_customer_reference_number: PO-${id}
defaults:
  locale: en_US
  expected_incidence_rate: 0.5
  expected_length_of_interview_minutes: 10
  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
  collects_pii: false
  timing: { job_poll_initial: 100ms, job_poll_max: 400ms }
target_groups:
${targetGroups}
${extra}`;
}

const tg = (key: string, body: string) =>
  `  ${key}:\n    live_url: https://survey.example.com/s/${key}?rid=[%RID%]\n${body
    .split('\n')
    .filter(Boolean)
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe('study lifecycle on the real dev server and sandbox', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack('lifecycle');
    fs.writeFileSync(path.join(t.dir, 'past-completes.txt'), `${RSIDS.join('\n')}\n`);
  });
  afterAll(async () => t?.stop());

  it('takes a multi-target-group study with lists, groups and activity exclusions to live', async () => {
    const file = writeStudy(
      t.dir,
      'multi.yaml',
      study(
        'multi-tg',
        tg('us', 'filling_goal: 100\nlaunch: { mode: auto }\nexclusions:\n  respondent_ids: { file: past-completes.txt }\n  exclusion_groups: [waves]') +
          tg('uk', 'locale: en_GB\nfilling_goal: 80\nlaunch: { mode: auto }\nexclusions:\n  exclusion_groups: [waves]\n  activity:\n    items:\n      - target_group: us\n        duration: P30D') +
          tg('de', 'locale: de_DE\nfilling_goal: 60\nlaunch: { mode: auto }'),
        'exclusion_groups:\n  waves:\n    name: Lifecycle waves\n',
      ),
    );
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);

    const state = t.stack.sandbox.state();
    const tgs = Object.values(state.target_groups);
    expect(Object.keys(state.projects)).toHaveLength(1);
    expect(tgs.map((x) => x.status).sort()).toEqual(['live', 'live', 'live']);
    const byRef = (key: string) => tgs.find((x) => x.target_group_customer_reference_number === `multi-tg_${key}`)!;
    const [us, uk] = [byRef('us'), byRef('uk')];
    expect(state.id_exclusion_lists[us.id].rsid).toHaveLength(RSIDS.length);
    const groups = Object.values(state.exclusion_groups);
    expect(groups).toHaveLength(1);
    expect([...groups[0].target_group_ids].sort()).toEqual([us.id, uk.id].sort());
    expect(uk.respondent_activity_exclusions).toEqual([expect.objectContaining({ type: 'target_group', id: us.id, duration_days: 30 })]);

    // The three drafts went out in one batch activity, not one activity each; uk then named us in a second pass.
    const history = await t.client.workflow.getHandle('study/1001/multi-tg').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
    expect(scheduled.filter((n) => n === 'ensureDraftTargetGroups')).toHaveLength(1);
    expect(scheduled).not.toContain('ensureDraftTargetGroup');
    expect(scheduled.filter((n) => n === 'updateDraftTargetGroup')).toHaveLength(1);
  });

  it('re-applies the unchanged multi-target-group study with zero writes', async () => {
    const before = t.stack.sandbox.requests().length;
    const result = await t.cli(['apply', path.join(t.dir, 'multi.yaml')]);
    expect(result.code).toBe(0);
    const writes = writeCalls(t.stack.sandbox.requests().slice(before));
    expect(writes).toEqual([]);
  });

  it('holds an infeasible target group at the gate, then launches it once the file lowers filling_goal', async () => {
    const hard = (goal: number) =>
      study('feasibility-gate', tg('rare', `expected_incidence_rate: 0.02\nexpected_length_of_interview_minutes: 45\nfilling_goal: ${goal}\nlaunch: { mode: auto, require_feasible: true }`));
    const file = writeStudy(t.dir, 'gate.yaml', hard(9000));
    const blocked = await t.cli(['apply', file]);
    // A launch the gate holds is a change not made: exit 4 (docs/cli.md), the title says which target group.
    expect(blocked.code, blocked.stdout).toBe(4);
    expect(blocked.stdout).toContain('not converged: 1 target group(s) gate-blocked (rare)');
    expect(blocked.stdout).toMatch(/rare\s+gate_blocked/);
    expect(blocked.stdout).toMatch(/infeasible: at most \d+ completes in the fielding window for a filling_goal of 9000/);
    expect(Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === 'feasibility-gate_rare')?.status).toBe('draft');

    writeStudy(t.dir, 'gate.yaml', hard(20));
    const passed = await t.cli(['apply', file, '--require-live']);
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.stdout).toMatch(/rare\s+live/);
  });

  it('waits for approval, then launches on `studyflow approve`', async () => {
    const file = writeStudy(t.dir, 'manual.yaml', study('approval-gate', tg('panel', 'filling_goal: 50\nlaunch: { mode: manual }')));
    const waiting = await t.cli(['apply', file]);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(/panel\s+awaiting_approval/);

    const approved = await t.cli(['approve', file, '--target-group', 'panel']);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('approved: panel');
    const status = await eventually(async () => {
      const s = await t.status('1001', 'approval-gate');
      return s.targetGroups.panel.phase === 'live' ? s : undefined;
    });
    expect(status.targetGroups.panel.fieldingRunId).toBeTruthy();
  });

  it('applies only the diff of a changed study', async () => {
    const two = (goal: number) => study('diff-only', tg('a', `filling_goal: ${goal}\nlaunch: { mode: manual }`) + tg('b', 'filling_goal: 40\nlaunch: { mode: manual }'));
    const file = writeStudy(t.dir, 'diff.yaml', two(40));
    expect((await t.cli(['apply', file])).code).toBe(0);
    const before = t.stack.sandbox.requests().length;
    writeStudy(t.dir, 'diff.yaml', two(45));
    const result = await t.cli(['apply', file]);
    expect(result.code).toBe(0);
    const writes = writeCalls(t.stack.sandbox.requests().slice(before));
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual(['PUT /v1/demand/accounts/{account_id}/projects/{project_id}/target-groups/{target_group_id}']);
    const a = Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === 'diff-only_a');
    expect(a?.filling_goal).toBe(45);
  });

  it('keeps writing a resource with 2025-12-18 after the study file moves to an older version (forward-only)', async () => {
    const versioned = (version: string, goal: number) =>
      study('forward-only', tg('v', `filling_goal: ${goal}\nlaunch: { mode: manual }`)).replace('study: forward-only', `study: forward-only\napi_version: "${version}"`);
    const file = writeStudy(t.dir, 'forward.yaml', versioned('2025-12-18', 30));
    expect((await t.cli(['apply', file])).code).toBe(0);
    const before = t.stack.sandbox.requests().length;
    writeStudy(t.dir, 'forward.yaml', versioned('2025-05-27', 35));
    const result = await t.cli(['apply', file]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const puts = writeCalls(t.stack.sandbox.requests().slice(before));
    expect(puts.map((r) => `${r.method} ${r.api_version}`)).toEqual(['PUT 2025-12-18']);
    const status = await t.status('1001', 'forward-only');
    expect(status.pinnedApiVersions).toMatchObject({ project: '2025-12-18', 'tg:v': '2025-12-18' });
    expect(Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === 'forward-only_v')?.filling_goal).toBe(35);
  });

  it('fails a target group whose upload job fails, with the reason, and never launches it', async () => {
    fs.writeFileSync(path.join(t.dir, 'few.txt'), `${FEW.join('\n')}\n`);
    const file = writeStudy(
      t.dir,
      'upload-fail.yaml',
      study('upload-fails', tg('listed', 'filling_goal: 30\nlaunch: { mode: auto }\nexclusions:\n  respondent_ids: { file: few.txt }')),
    );
    t.stack.sandbox.setFaults({ job_failure_rate: 1 });
    try {
      const before = t.stack.sandbox.requests().length;
      const result = await t.cli(['apply', file]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/listed\s+failed/);
      expect(result.stdout).toMatch(/RSID upload job \S+ failed/);
      const launches = t.stack.sandbox.requests().slice(before).filter((r) => r.path.endsWith('/launch-from-draft'));
      expect(launches).toEqual([]);
    } finally {
      t.stack.sandbox.setFaults({});
    }
    // A re-apply retries the failed target group.
    const retried = await t.cli(['apply', file, '--require-live']);
    expect(retried.code, retried.stdout).toBe(0);
  });

  it('still tells the study of a phase a target group stays in for longer than the progress interval', async () => {
    const file = writeStudy(
      t.dir,
      'slow.yaml',
      study('slow-upload', tg('slow', 'filling_goal: 30\nlaunch: { mode: auto }\nexclusions:\n  respondent_ids: { file: past-completes.txt }')),
    );
    t.stack.sandbox.setFaults({ job_duration_ms: 3000 });
    try {
      expect((await t.cli(['apply', file, '--no-wait'])).code).toBe(0);
      // Passing phases are paced (PROGRESS_INTERVAL_MS), not dropped: the 3 s upload shows while it runs.
      const uploading = await eventually(async () => {
        const s = await t.status('1001', 'slow-upload').catch(() => undefined);
        return s?.targetGroups.slow?.phase === 'uploading' ? s : undefined;
      }, 20_000, 100);
      expect(uploading.targetGroups.slow.phase).toBe('uploading');
    } finally {
      t.stack.sandbox.setFaults({});
    }
    await eventually(async () => ((await t.status('1001', 'slow-upload')).targetGroups.slow?.phase === 'live' ? true : undefined));
    // The phase went out on the pacing timer, which fired: the target group had been uploading for a second.
    const events = (await t.client.workflow.getHandle('study/1001/slow-upload/tg/slow').fetchHistory()).events ?? [];
    const pacing = events.filter((e) => e.timerStartedEventAttributes && Buffer.from(e.userMetadata?.summary?.data ?? []).toString() === JSON.stringify(PROGRESS_PACING_SUMMARY));
    expect(pacing.length).toBeGreaterThan(0);
    for (const timer of pacing) expect(Number(timer.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0)).toBeLessThanOrEqual(PROGRESS_INTERVAL_MS / 1000);
    const fired = new Set(events.flatMap((e) => (e.timerFiredEventAttributes ? [Number(e.timerFiredEventAttributes.startedEventId)] : [])));
    expect(pacing.some((timer) => fired.has(Number(timer.eventId)))).toBe(true);
  });

  it('keeps secrets, tokens and respondent IDs out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET, ...RSIDS.slice(0, 20), ...FEW], 'lifecycle');
    expect(scanned.workflows).toBeGreaterThan(5);
  });
});
