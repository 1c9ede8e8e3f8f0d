import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTemporalCli } from '../../scripts/temporal-cli.mjs';
import { PROGRESS_INTERVAL_MS } from '../../workflows/target-group-workflow';
import { startTestStack, writeCalls, writeStudy, type TestStack } from './harness';

const STUDY = `# yaml-language-server: $schema=../../schema/study.schema.json
format: studyflow/v1
study: skeleton-demo
account: "1001"
business_unit: "2001"
project:
  name: Walking skeleton
  human_readable_id: walking_skeleton
  project_customer_reference_number: PO-SKELETON-1
target_groups:
  us_gen_pop:
    name: US general population
    locale: en_US
    live_url: https://survey.example.com/s/skeleton?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "3001"
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

  it("reads the launch gate's figures in one activity and never waits for its study on the way to live", async () => {
    const history = await t.client.workflow.getHandle('study/1001/skeleton-demo/tg/us_gen_pop').fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [{ name: e.activityTaskScheduledEventAttributes.activityType?.name, task: Number(e.activityTaskScheduledEventAttributes.workflowTaskCompletedEventId) }]
        : [],
    );
    const taskOf = (name: string) => scheduled.find((a) => a.name === name)?.task;
    // Feasibility and the price prediction are read in one activity, not one each.
    expect(taskOf('checkLaunchGates')).toBeDefined();
    expect(taskOf('calculateFeasibility')).toBeUndefined();
    expect(taskOf('generatePricePrediction')).toBeUndefined();
    // Progress is paced: the passing phase (checking feasibility) does not go out at once; a timer of at
    // most PROGRESS_INTERVAL_MS is started by that same workflow task instead, and the target group goes on.
    const signals = events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes);
    const taskOfEvent = (e: (typeof events)[number]) =>
      Number((e.signalExternalWorkflowExecutionInitiatedEventAttributes ?? e.timerStartedEventAttributes)?.workflowTaskCompletedEventId);
    expect(signals.map(taskOfEvent)).not.toContain(taskOf('checkLaunchGates'));
    const pacing = events.find((e) => e.timerStartedEventAttributes && taskOfEvent(e) === taskOf('checkLaunchGates'));
    expect(pacing).toBeDefined();
    const pacingMs = Number(pacing?.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) * 1000 + Math.round((pacing?.timerStartedEventAttributes?.startToFireTimeout?.nanos ?? 0) / 1e6);
    expect(pacingMs).toBeGreaterThan(0);
    expect(pacingMs).toBeLessThanOrEqual(PROGRESS_INTERVAL_MS);
    // Until live, at most one signal per interval for passing phases, plus the one that says live.
    const launchScheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'launchAndAwait');
    const launched = events.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? 0) === Number(launchScheduled?.eventId));
    expect(launched).toBeDefined();
    const ms = (e: (typeof events)[number] | undefined) => Number(e?.eventTime?.seconds ?? 0) * 1000 + Math.round((e?.eventTime?.nanos ?? 0) / 1e6);
    const liveAfterMs = ms(launched) - ms(events[0]);
    const liveSignal = signals.find((e) => Number(e.eventId) > Number(launched?.eventId));
    expect(liveSignal).toBeDefined();
    const beforeLive = signals.filter((e) => Number(e.eventId) <= Number(liveSignal?.eventId));
    expect(beforeLive.length).toBeLessThanOrEqual(1 + Math.floor(liveAfterMs / PROGRESS_INTERVAL_MS));
    // Launch and its job are waited for in one activity: no poll activities, no launch-only activity.
    const names = scheduled.map((a) => a.name);
    expect(names).toContain('launchAndAwait');
    expect(names).not.toContain('getLaunchJob');
    expect(names).not.toContain('launchFromDraft');
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
