import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTemporalCli } from '../../dev/temporal-cli.mjs';
import { startTestStack, writeCalls, writeStudy, type TestStack } from './harness';

const STUDY = `# yaml-language-server: $schema=../../schema/study.schema.json
format: studyflow/v1
study: skeleton-demo
account: "1001"
business_unit: "2001"
project:
  name: Walking skeleton
  project_customer_reference_number: PO-SKELETON-1
target_groups:
  us_gen_pop:
    name: US general population
    locale: en_US
    live_url: https://survey.example.com/s/skeleton?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch:
      mode: auto
      require_feasible: true
    timing:
      job_poll_initial: 100ms
      job_poll_max: 500ms
`;

describe('walking skeleton: study file -> apply -> live target group', () => {
  let t: TestStack;
  let file: string;
  beforeAll(async () => {
    t = await startTestStack('skeleton');
    file = writeStudy(t.dir, 'study.yaml', STUDY);
  });
  afterAll(async () => t?.stop());

  it('applies the study through Temporal and the target group is live in the sandbox', async () => {
    const result = await t.cli(['apply', file]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/us_gen_pop\s+live/);
    expect(result.stdout).toContain('converged');

    const state = t.stack.sandbox.state();
    const projects = Object.values(state.projects);
    const tgs = Object.values(state.target_groups);
    expect(projects).toHaveLength(1);
    expect(projects[0].project_customer_reference_number).toBe('PO-SKELETON-1');
    expect(tgs).toHaveLength(1);
    expect(tgs[0].status).toBe('live');
    expect(tgs[0].fielding_run_id).toBeTruthy();

    // Every call carried the version header, and a token was requested once.
    const log = t.stack.sandbox.requests();
    expect(log.filter((r) => r.path.startsWith('/v1')).every((r) => r.api_version === '2025-12-18')).toBe(true);
    expect(log.filter((r) => r.path.endsWith('/oauth/token'))).toHaveLength(1);
  });

  it("launches the target group from the study's draft batch; its own workflow then only settles live and watches", async () => {
    const activityNames = async (workflowId: string) => {
      const events = (await t.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      return { events, names: events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [])) };
    };
    // The study read the gate (feasibility and price in one call each, side by side), launched the
    // target group from its draft batch, and awaited the job in one activity: no poll activities, no
    // launch-only activity, no launch batch of its own.
    const study = await activityNames('study/1001/skeleton-demo');
    expect(study.names.filter((n) => n === 'checkLaunchGatesBatch')).toHaveLength(1);
    expect(study.names.filter((n) => n === 'ensureDraftTargetGroups')).toHaveLength(1);
    expect(study.names.filter((n) => n === 'awaitJobsBatch')).toHaveLength(1);
    expect(study.names).not.toContain('launchAndAwaitBatch');
    // The gate was read beside the project (scheduled by the same workflow task, after it), not after the draft.
    const scheduledBy = (name: string) =>
      study.events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name)?.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId?.toString();
    expect(scheduledBy('checkLaunchGatesBatch')).toBeDefined();
    expect(scheduledBy('checkLaunchGatesBatch')).toBe(scheduledBy('ensureProject'));
    // The target group's workflow starts once the revision settled (apply may have returned before it ran):
    // it made no call on its way to live and told its study once.
    const tgId = 'study/1001/skeleton-demo/tg/us_gen_pop';
    const signalled = async () => (await activityNames(tgId).catch(() => undefined))?.events.some((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes);
    for (const deadline = Date.now() + 30_000; !(await signalled()) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const tg = await activityNames(tgId);
    for (const name of ['checkLaunchGatesBatch', 'calculateFeasibility', 'generatePricePrediction', 'launchAndAwaitBatch', 'launchFromDraft', 'getLaunchJob', 'readTargetGroupState']) {
      expect(tg.names).not.toContain(name);
    }
    // Its first report reaches the study one watch interval (30 s here) after live: until then, one signal.
    expect(tg.events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    const status = await t.status('1001', 'skeleton-demo');
    expect(status.targetGroups.us_gen_pop).toMatchObject({ phase: 'live', feasibility: { feasible: true } });
    expect(status.targetGroups.us_gen_pop.fieldingRunId).toBeTruthy();
    expect(status.targetGroups.us_gen_pop.price).toBeDefined();
  });

  it('shows the study workflow with a business-meaningful id and search attributes in `temporal workflow list`', () => {
    const bin = installTemporalCli();
    const list = spawnSync(
      bin,
      ['workflow', 'list', '--address', inject('temporalAddress'), '--query', 'StudyflowStudy="skeleton-demo"', '-o', 'json'],
      { encoding: 'utf8' },
    );
    expect(list.status).toBe(0);
    const rows = JSON.parse(list.stdout) as { execution: { workflowId: string }; searchAttributes?: { indexedFields?: Record<string, unknown> } }[];
    const ids = rows.map((r) => r.execution.workflowId);
    expect(ids).toContain('study/1001/skeleton-demo');
    const study = rows.find((r) => r.execution.workflowId === 'study/1001/skeleton-demo');
    const fields = JSON.stringify(study?.searchAttributes ?? {});
    expect(fields).toContain('StudyflowAccount');
    expect(fields).toContain('StudyflowStudy');
  });

  it('re-applying the unchanged study plans nothing and makes zero write calls', async () => {
    const before = t.stack.sandbox.requests().length;
    const result = await t.cli(['apply', file, '--json']);
    expect(result.code).toBe(0);
    const writes = writeCalls(t.stack.sandbox.requests().slice(before));
    expect(writes).toEqual([]);
    const out = JSON.parse(result.stdout) as { studies: { status: { plan: { kind: string }[] } }[] };
    expect(out.studies[0].status.plan.filter((a) => a.kind !== 'none')).toEqual([]);
  });

  it('keeps the client secret and tokens out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET], 'skeleton');
    expect(scanned.workflows).toBeGreaterThanOrEqual(2);
  });
});
