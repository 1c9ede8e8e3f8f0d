// The draft body the planner derives from a study file: the fielding window and the cost note as the reference takes them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudyText } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { MINIMAL_TARGET_GROUP_FIELDS } from '../helpers/study-yaml';

async function desiredOf(fields: string) {
  const text = `format: studyflow/v1
study: window-study
account: "1001"
business_unit: "2001"
project:
  name: Window project
target_groups:
  us:
${MINIMAL_TARGET_GROUP_FIELDS}${fields}`;
  const loaded = await loadStudyText(text, path.join(process.cwd(), 'window-study.yaml'), { env: {} });
  expect(loaded.diagnostics).toEqual([]);
  return desiredStudyOf(loaded.study!.study, {}).targetGroups[0];
}

describe('the draft body from a study file', () => {
  it('sends the study\'s fielding window; with a start alone it ends 30 days later, at the launch too', async () => {
    const both = await desiredOf('    start_fielding_at: 2027-01-04T00:00:00Z\n    end_fielding_at: 2027-01-20T00:00:00Z\n');
    expect(both.draft.fielding_specification).toEqual({ start_at: '2027-01-04T00:00:00Z', end_at: '2027-01-20T00:00:00Z' });
    expect(both.launch.endFieldingAt).toBe('2027-01-20T00:00:00Z');
    const start = await desiredOf('    start_fielding_at: 2027-01-04T00:00:00Z\n');
    expect(start.draft.fielding_specification).toEqual({ start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-03T00:00:00.000Z' });
    expect(start.launch.endFieldingAt).toBe('2027-02-03T00:00:00.000Z');
  });

  it('leaves the window to the workflow when the study names no start (it starts when the draft is written)', async () => {
    const end = await desiredOf('    end_fielding_at: 2027-01-20T00:00:00Z\n');
    expect(end.draft).not.toHaveProperty('fielding_specification');
    expect(end.launch.endFieldingAt).toBe('2027-01-20T00:00:00Z');
    const neither = await desiredOf('');
    expect(neither.draft).not.toHaveProperty('fielding_specification');
    expect(neither.launch.endFieldingAt).toBeUndefined();
  });

  it('sends the cost note as money', async () => {
    const noted = await desiredOf('    client_cost_per_interview_note: { value: "2.50", currency_code: USD }\n');
    expect(noted.draft.client_cost_per_interview_note).toEqual({ value: '2.50', currency_code: 'USD' });
  });

  it('carries the fielding state, the CPI and a timed launch outside the draft body; none of them when the file gives none', async () => {
    const live = await desiredOf('    fielding: paused\n    cost_per_interview: { value: "3.10", currency_code: USD }\n    launch: { at: 2027-01-04T08:00:00-05:00 }\n');
    expect(live.fielding).toBe('paused');
    expect(live.costPerInterview).toEqual({ value: '3.10', currency_code: 'USD' });
    expect(live.launch.at).toBe('2027-01-04T08:00:00-05:00');
    expect(live.draft).not.toHaveProperty('cost_per_interview');
    expect(live.draft).not.toHaveProperty('fielding');
    const plain = await desiredOf('');
    // Absent, not defaulted: a study file without them keeps its revision.
    expect(Object.keys(plain)).not.toEqual(expect.arrayContaining(['fielding']));
    expect(plain).not.toHaveProperty('costPerInterview');
    expect(plain.launch).not.toHaveProperty('at');
    expect(plain.launch).not.toHaveProperty('after');
  });
});

describe('the notify targets a target group carries', () => {
  async function targetsOf(notify: string) {
    const text = `format: studyflow/v1
study: notify-study
account: "1001"
business_unit: "2001"
project:
  name: Notify project
${notify}target_groups:
  us:
${MINIMAL_TARGET_GROUP_FIELDS}`;
    const loaded = await loadStudyText(text, path.join(process.cwd(), 'notify-study.yaml'), { env: {} });
    expect(loaded.diagnostics).toEqual([]);
    return desiredStudyOf(loaded.study!.study, {});
  }

  it('carries the variable names and only the events about a target group; a budget-only target is left to the study', async () => {
    const desired = await targetsOf('notify:\n  - url: ${SLACK_WEBHOOK_URL}\n    events: [budget_reached, gate_blocked]\n  - url: ${OPS_HOOK}\n  - url: ${FINANCE_HOOK}\n    events: [budget_reached]\n');
    expect(desired.targetGroups[0].notify).toEqual([
      { envName: 'SLACK_WEBHOOK_URL', events: ['gate_blocked'] },
      { envName: 'OPS_HOOK', events: ['gate_blocked', 'guard_tripped', 'launch_failed', 'drift_found', 'target_group_completed', 'soft_launch_decided'] },
    ]);
    expect(JSON.stringify(desired.targetGroups[0].notify)).not.toMatch(/\$\{|:\/\//);
  });

  it('carries nothing without a notify block, so the revision of a study without one does not change', async () => {
    const desired = await targetsOf('');
    expect(desired.targetGroups[0]).not.toHaveProperty('notify');
  });
});
