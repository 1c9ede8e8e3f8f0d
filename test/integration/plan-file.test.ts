// Plan files on the embedded stack (real Temporal, the sandbox), through the CLI: `plan --out plan.sfplan` then
// `apply plan.sfplan`. An untouched plan applies and converges; a plan whose target group's goal was changed in the
// exchange since stops before the write (exit 5, what changed, 0 writes); a plan of another revision of the file,
// and a cut plan file, are refused by name (exit 1) with nothing written.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { demandApiFromEnv } from '../../api/http/api-client-env';
import { apiCaller } from '../../api/operations/caller';
import { readGoals, updateFillingGoal } from '../../api/operations/live-target-groups';
import { applyExitCode } from '../../client/follow';
import { prepareStudies } from '../../client/prepare-studies';
import { awaitRevision, submitRevision } from '../../client/study-runs';
import { readPlanFile } from '../../plan/plan-file';
import { studyWorkflowId } from '../../workflows/messages';
import { useTestStack } from '../fixtures/stack';
import { quickLaunchFields } from '../helpers/study-yaml';
import { writeStudy } from './harness';

const ACCOUNT = '1001';

function studyYaml(study: string, usGoal: number): string {
  return `format: studyflow/v1
study: ${study}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Plan file ${study}
defaults:
${quickLaunchFields('  ', 40)}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${study}-us?rid=[%RID%]
    filling_goal: ${usGoal}
  uk:
    locale: en_GB
    live_url: https://survey.example.com/s/${study}-uk?rid=[%RID%]
`;
}

describe('plan files (plan --out, apply FILE.sfplan)', () => {
  const t = useTestStack('plan-file');
  const remoteOf = (study: string, key: string) => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${study}_${key}`);
  // The exchange's writes: what is not a read (reads, and the calculations a plan asks, change nothing).
  const writesSince = (from: number) =>
    t.stack.sandbox
      .requests()
      .slice(from)
      .filter((r) => r.method !== 'GET' && !r.path.startsWith('/_sandbox') && !/feasibility|price-prediction|suggest|validate|calculate|distribution|token/.test(r.path))
      .map((r) => `${r.method} ${r.path}`);
  const caller = () => apiCaller(demandApiFromEnv(t.env).api, { accountId: ACCOUNT, apiVersion: '2025-12-18' });

  it('an untouched plan file applies and converges; the plan of a changed goal stops at exit 5 once the exchange moved', async () => {
    const study = 'plan-file';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 40));
    const planFile = path.join(t.dir, 'first.sfplan');
    const planned = await t.cli(['plan', file, '--out', planFile]);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    const written = JSON.parse(fs.readFileSync(planFile, 'utf8')) as { format: string; checksum: string; content: { profile: string; studies: { revision: string; fingerprints: Record<string, string> }[] } };
    expect(written.format).toBe('studyflow-plan/v1');
    expect(written.content.profile).toBe('sandbox');
    expect(written.content.studies[0].fingerprints).toMatchObject({ project: 'absent', 'target_group:us': 'absent', 'target_group:uk': 'absent' });

    // Untouched: applied as planned, converged.
    const applied = await t.cli(['apply', planFile, '--timeout', '120']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(remoteOf(study, 'us')?.status).toBe('live');
    expect(remoteOf(study, 'uk')?.status).toBe('live');
    expect((await t.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);

    // The same plan file again: its creates relied on nothing being there; the exchange moved, nothing is written.
    let before = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', planFile, '--timeout', '60']);
    expect(again.code, again.stdout + again.stderr).toBe(5);
    expect(again.stderr).toMatch(/the exchange changed since the plan \(.*project, target_group:uk, target_group:us\)/);
    expect(writesSince(before)).toEqual([]);

    // A goal raise planned, then the goal changed in the exchange directly: the stale write is not made.
    writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 50));
    const raise = path.join(t.dir, 'raise.sfplan');
    expect((await t.cli(['plan', file, '--out', raise])).code).toBe(0);
    const us = remoteOf(study, 'us');
    if (!us) throw new Error('us is not in the exchange');
    const ref = { projectId: us.project_id, targetGroupId: us.id };
    expect((await updateFillingGoal(caller(), ref, { completesGoal: 45 })).outcome).toBe('applied');
    before = t.stack.sandbox.requests().length;
    const stale = await t.cli(['apply', raise, '--timeout', '60']);
    expect(stale.code, stale.stdout + stale.stderr).toBe(5);
    expect(stale.stderr).toContain('the exchange changed since the plan (target_group:us');
    expect(stale.stderr).toMatch(/- planned: .*us .*40 -> 50/);
    expect(stale.stderr).toMatch(/\+ now: .*us .*45 -> 50/);
    expect(writesSince(before)).toEqual([]);
    expect((await readGoals(caller(), ref)).completesGoal).toBe(45);

    // Planned again, untouched: applied exactly, the goal is the file's.
    const fresh = path.join(t.dir, 'fresh.sfplan');
    expect((await t.cli(['plan', file, '--out', fresh])).code).toBe(0);
    const raised = await t.cli(['apply', '--plan', fresh, '--timeout', '120']);
    expect(raised.code, raised.stdout + raised.stderr).toBe(0);
    expect((await readGoals(caller(), ref)).completesGoal).toBe(50);
  });

  it('the study workflow itself writes nothing when the exchange moved between the client\'s check and its reading (StalePlan, apply exit 5)', async () => {
    const study = 'plan-file-workflow';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 40));
    expect((await t.cli(['apply', file, '--timeout', '120'])).code).toBe(0);
    writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 50));
    const planFile = path.join(t.dir, 'workflow.sfplan');
    expect((await t.cli(['plan', file, '--out', planFile])).code).toBe(0);
    const fingerprints = readPlanFile(fs.readFileSync(planFile, 'utf8')).studies[0].fingerprints;
    const us = remoteOf(study, 'us');
    if (!us) throw new Error('us is not in the exchange');
    const ref = { projectId: us.project_id, targetGroupId: us.id };
    expect((await updateFillingGoal(caller(), ref, { completesGoal: 44 })).outcome).toBe('applied');
    // The revision as `apply plan.sfplan` hands it over, past the client's check: the workflow's own reading finds the move.
    const { prepared } = await prepareStudies([file], t.env);
    const before = t.stack.sandbox.requests().length;
    const { workflowId } = await submitRevision(t.client, prepared[0].desired, { taskQueue: t.taskQueue, planned: { fingerprints } });
    expect(workflowId).toBe(studyWorkflowId(ACCOUNT, study));
    const status = await awaitRevision(t.client, workflowId, prepared[0].desired.revision);
    expect(status.phase).toBe('failed');
    expect(status.error).toMatch(/^StalePlan: the exchange changed since the plan file: target_group:us \(planned sha256:\w+, now sha256:\w+\); nothing was written/);
    expect(writesSince(before)).toEqual([]);
    expect((await readGoals(caller(), ref)).completesGoal).toBe(44);
    expect(applyExitCode([{ file, workflowId, revision: prepared[0].desired.revision, outcome: 'settled', status }], {})).toBe(5);
    // A plan made now applies, and the study converges again.
    const fresh = path.join(t.dir, 'workflow-fresh.sfplan');
    expect((await t.cli(['plan', file, '--out', fresh])).code).toBe(0);
    const applied = await t.cli(['apply', fresh, '--timeout', '120']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await readGoals(caller(), ref)).completesGoal).toBe(50);
  });

  it('refuses a plan of another revision of the file and a cut plan file, exit 1, nothing written', async () => {
    const study = 'plan-file-refused';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 40));
    const planFile = path.join(t.dir, 'refused.sfplan');
    expect((await t.cli(['plan', file, '--out', planFile])).code).toBe(0);
    writeStudy(t.dir, `${study}.yaml`, studyYaml(study, 41));
    const before = t.stack.sandbox.requests().length;
    const other = await t.cli(['apply', planFile]);
    expect(other.code, other.stdout + other.stderr).toBe(1);
    expect(other.stderr).toMatch(/planned revision \S+ of .*plan-file-refused\.yaml, the file is now revision \S+; nothing was written/);
    const cut = path.join(t.dir, 'cut.sfplan');
    const text = fs.readFileSync(planFile, 'utf8');
    fs.writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)));
    const truncated = await t.cli(['apply', cut]);
    expect(truncated.code, truncated.stdout + truncated.stderr).toBe(1);
    expect(truncated.stderr).toContain('not a complete plan file (truncated or not JSON');
    expect(writesSince(before)).toEqual([]);
    expect(remoteOf(study, 'us')).toBeUndefined();
  });
});
