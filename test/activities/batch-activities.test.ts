// The batch activities against the real sandbox. ensureDraftTargetGroups: every draft of a batch made
// once, a refused draft failing alone and final, lost answers coming back retryable with no duplicate
// on the next try. checkLaunchGatesBatch and launchAndAwaitBatch: a result per target group, launches
// made once however often the batch runs, a failed job returned as a result, not thrown.
import { describe, expect, it } from 'vitest';
import type { EnsureDraftTargetGroupInput, LaunchAndAwaitInput } from '../../activities';
import { BATCH_MAX } from '../../activities/batch';
import { rejectionOf } from './helpers/mock-api';
import { ctx, draftTargetGroup } from './helpers/sandbox-harness';
import { useSandboxHarness } from '../fixtures/activities';
import { testDialect } from '../helpers/test-profile';

const h = useSandboxHarness();

const apiLog = () => h.sandbox.requests().filter((r) => r.path.startsWith('/v1/'));

async function newProject(): Promise<string> {
  const { project } = await h.activities.ensureProject({
    ctx, idempotencyKey: 'p:batch', desired: { name: 'Batch', project_customer_reference_number: 'PO-B', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' },
  });
  return project.id;
}

function items(projectId: string, n: number, overrides: (i: number) => Record<string, unknown> = () => ({})): EnsureDraftTargetGroupInput[] {
  return Array.from({ length: n }, (_, i) => ({
    ctx,
    projectId,
    idempotencyKey: `study/tg/${i}`,
    desired: draftTargetGroup({ name: `Draft ${i}`, target_group_customer_reference_number: `PO-B-${i}`, ...overrides(i) }),
  }));
}

describe('ensureDraftTargetGroups', () => {
  it('makes every draft of the batch, in order; running it again makes none', async () => {
    const projectId = await newProject();
    const batch = items(projectId, 6);
    const first = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(first.results).toHaveLength(6);
    const ids = first.results.map((r) => (r.ok ? r.targetGroupId : undefined));
    expect(first.results.every((r) => r.ok && r.created)).toBe(true);
    const stored = h.sandbox.state().target_groups as Record<string, { name: string }>;
    expect(ids.map((id) => stored[id as string].name)).toEqual(batch.map((b) => b.desired.name));

    const again = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(again.results).toEqual(ids.map((id) => ({ ok: true, targetGroupId: id, created: false })));
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(6);
    expect(apiLog().filter((r) => r.method === 'POST' && r.path.endsWith('/target-groups'))).toHaveLength(6);
    // Read before create: the project's target groups listed once per batch run, not once per draft.
    expect(apiLog().filter((r) => r.method === 'GET' && r.path.endsWith('/target-groups'))).toHaveLength(2);
  });

  it('a draft the API refuses fails alone and as final; the others are made', async () => {
    const projectId = await newProject();
    const batch = items(projectId, 4, (i) => (i === 2 ? { filling_goal: 0 } : {}));
    const { results } = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true]);
    const refused = results[2];
    if (refused.ok) throw new Error('expected a failure');
    expect(refused.retryable).toBe(false);
    // Named in the run's dialect: the spec's filling_goal, the reference's completes_goal.
    expect(refused.failure.message).toMatch(testDialect() === 'spec' ? /filling_goal/ : /completes_goal/);
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(3);
  });

  it('answers lost after the API committed come back retryable, and the next try makes no duplicate', async () => {
    const projectId = await newProject();
    const batch = items(projectId, 5);
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const lost = await h.activities.ensureDraftTargetGroups({ items: batch });
    h.sandbox.setFaults({});
    expect(lost.results.every((r) => !r.ok && r.retryable && r.failure.type === 'network_error')).toBe(true);
    const committed = Object.keys(h.sandbox.state().target_groups).length;
    expect(committed).toBeGreaterThan(0);

    const retried = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(retried.results.every((r) => r.ok)).toBe(true);
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(5);
    const made = retried.results.filter((r) => r.ok && r.created).length;
    expect(made).toBe(5 - committed);
  });

  it('observedAbsent: creates at once without listing; a lost answer retried makes no duplicate (the Idempotency-Key)', async () => {
    const projectId = await newProject();
    const batch = items(projectId, 4).map((item) => ({ ...item, observedAbsent: true }));
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const lost = await h.activities.ensureDraftTargetGroups({ items: batch });
    h.sandbox.setFaults({});
    expect(lost.results.every((r) => !r.ok && r.retryable)).toBe(true);
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(4);

    const retried = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(retried.results.every((r) => r.ok && r.created)).toBe(true);
    // The same four drafts: the API answered the repeated creates with what the first ones made.
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(4);
    expect(new Set(retried.results.map((r) => (r.ok ? r.targetGroupId : '')))).toEqual(new Set(Object.keys(h.sandbox.state().target_groups)));
    expect(apiLog().filter((r) => r.method === 'GET' && r.path.endsWith('/target-groups'))).toHaveLength(0);
    expect(apiLog().filter((r) => r.method === 'POST' && r.path.endsWith('/target-groups'))).toHaveLength(8);
  });

  it('observedAbsent on the project: one create, no list', async () => {
    const desired = { name: 'Absent project', project_customer_reference_number: 'PO-ABSENT', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' };
    const first = await h.activities.ensureProject({ ctx, idempotencyKey: 'p:absent', desired, observedAbsent: true });
    const again = await h.activities.ensureProject({ ctx, idempotencyKey: 'p:absent', desired, observedAbsent: true });
    expect(again.project.id).toBe(first.project.id);
    expect(apiLog().filter((r) => r.path.endsWith('/projects')).map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(Object.keys(h.sandbox.state().projects)).toHaveLength(1);
  });

  it(`refuses more than ${BATCH_MAX} drafts as invalid input, before any call`, async () => {
    const projectId = await newProject();
    const before = apiLog().length;
    const error = await rejectionOf(h.activities.ensureDraftTargetGroups({ items: items(projectId, BATCH_MAX + 1) }));
    expect(error).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(apiLog()).toHaveLength(before);
  });
});

const wait = { pollInitialMs: 20, pollMaxMs: 50, budgetMs: 10_000 };

describe('ensureDraftTargetGroups with launch', () => {
  const LIVE_URL = 'https://survey.example.com/s?rid=[%RID%]';
  const launching = (projectId: string, n: number, overrides: (i: number) => Record<string, unknown> = () => ({})) =>
    items(projectId, n, (i) => ({ live_url: LIVE_URL, ...overrides(i) })).map((item, i) => ({ ...item, launch: { endFieldingAt: '2027-06-30T00:00:00Z', idempotencyKeyPrefix: `study/launch/${i}` } }));
  const launchPosts = () => apiLog().filter((r) => r.method === 'POST' && r.path.endsWith('/launch-from-draft'));

  it('launches each draft it made without reading it again, its key the prefix and the id; the jobs are left to await', async () => {
    const projectId = await newProject();
    const batch = launching(projectId, 3);
    const readsBefore = apiLog().filter((r) => r.method === 'GET' && /\/target-groups\/[^/]+$/.test(r.path)).length;
    const { results } = await h.activities.ensureDraftTargetGroups({ items: batch });
    const jobs: string[] = [];
    for (const r of results) {
      if (!r.ok || !r.launch?.ok) throw new Error('expected a draft and its launch');
      expect(r.created).toBe(true);
      expect(r.launch).toMatchObject({ alreadyLaunched: false, fieldingRunId: null });
      jobs.push(r.launch.jobId as string);
    }
    expect(new Set(jobs).size).toBe(3);
    expect(launchPosts()).toHaveLength(3);
    expect(launchPosts().every((r) => r.idempotency_key_present)).toBe(true);
    // No read of the target group between its create and its launch.
    expect(apiLog().filter((r) => r.method === 'GET' && /\/target-groups\/[^/]+$/.test(r.path))).toHaveLength(readsBefore);

    const awaited = await h.activities.awaitJobsBatch({
      items: results.map((r, i) => ({ ctx, projectId, targetGroupId: r.ok ? r.targetGroupId : '', kind: 'launch' as const, jobId: jobs[i], ...wait })),
    });
    for (const r of awaited.results) expect(r).toMatchObject({ ok: true, status: 'Completed', done: true });
    const stored = h.sandbox.state().target_groups as Record<string, { status: string }>;
    expect(results.map((r) => (r.ok ? stored[r.targetGroupId].status : ''))).toEqual(['live', 'live', 'live']);
  });

  it('running the batch again reads the drafts it finds before launching, and launches nothing twice', async () => {
    const projectId = await newProject();
    const batch = launching(projectId, 2);
    const first = await h.activities.ensureDraftTargetGroups({ items: batch });
    const again = await h.activities.ensureDraftTargetGroups({ items: batch });
    for (const [i, r] of again.results.entries()) {
      if (!r.ok || !r.launch?.ok) throw new Error('expected a draft and its launch');
      expect(r.created).toBe(false);
      const before = first.results[i];
      // Same Idempotency-Key: the API answers with the same job (or the target group is launched already).
      if (r.launch.jobId) expect(r.launch.jobId).toBe(before.ok && before.launch?.ok ? before.launch.jobId : undefined);
      else expect(r.launch.alreadyLaunched).toBe(true);
    }
    expect(Object.keys(h.sandbox.state().target_groups)).toHaveLength(2);
    const jobs = Object.values(h.sandbox.state().jobs as Record<string, { kind: string }>).filter((j) => j.kind === 'launch_from_draft');
    expect(jobs).toHaveLength(2);
  });

  it('returns a launch the API refused in `launch`, and the draft as made', async () => {
    const projectId = await newProject();
    // No live_url: the API refuses to launch it.
    const batch = launching(projectId, 2, (i) => (i === 1 ? { live_url: null } : {}));
    const { results } = await h.activities.ensureDraftTargetGroups({ items: batch });
    const [ok, refused] = results;
    expect(ok).toMatchObject({ ok: true, created: true, launch: { ok: true } });
    if (!refused.ok || !refused.launch || refused.launch.ok) throw new Error('expected a draft whose launch was refused');
    expect(refused.created).toBe(true);
    expect(refused.launch.retryable).toBe(false);
    expect(refused.launch.failure.message).toMatch(/live_url/);
  });
});

async function drafts(n: number): Promise<LaunchAndAwaitInput[]> {
  const { project } = await h.activities.ensureProject({ ctx, idempotencyKey: 'p:launch', desired: { name: 'Launch L', project_customer_reference_number: 'PO-L', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } });
  const { results } = await h.activities.ensureDraftTargetGroups({
    items: Array.from({ length: n }, (_, i) => ({
      ctx,
      projectId: project.id,
      idempotencyKey: `tg:${i}`,
      desired: draftTargetGroup({ name: `Launch ${i}`, target_group_customer_reference_number: `PO-L-${i}`, live_url: 'https://survey.example.com/s?rid=[%RID%]' }),
    })),
  });
  return results.map((r, i) => {
    if (!r.ok) throw new Error(`draft ${i}: ${r.failure.message}`);
    return { ctx, projectId: project.id, targetGroupId: r.targetGroupId, endFieldingAt: '2027-06-30T00:00:00Z', idempotencyKey: `launch:${i}`, wait };
  });
}

describe('checkLaunchGatesBatch', () => {
  it('reads the feasibility of every item (its suggested price answers the price question)', async () => {
    const window = { start_at: new Date(Date.now() + 3_600_000).toISOString(), end_at: new Date(Date.now() + 20 * 86_400_000).toISOString() };
    const request = (goal: number) => ({ business_unit_id: 2001, locale: 'en_US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: goal, fielding_specification: window });
    const { results } = await h.activities.checkLaunchGatesBatch({ items: [100, 200].map((goal) => ({ ctx, feasibility: request(goal) })) });
    expect(results).toHaveLength(2);
    for (const r of results) {
      if (!r.ok) throw new Error(r.failure.message);
      expect(r.feasibility.suggested_price).toMatchObject({ currency_code: 'USD' });
      expect(r.feasibility.suggested_completes_goal_range!.max).toBeGreaterThanOrEqual(r.feasibility.suggested_completes_goal_range!.min);
    }
  });
});

describe('launchAndAwaitBatch', () => {
  it('launches every draft and waits for its job; running it again launches nothing more', async () => {
    const items = await drafts(3);
    const first = await h.activities.launchAndAwaitBatch({ items });
    for (const r of first.results) {
      if (!r.ok) throw new Error(r.failure.message);
      expect(r.job).toMatchObject({ status: 'Completed', done: true });
      expect(r.job?.fieldingRunId ?? r.fieldingRunId).toBeTruthy();
    }
    const stored = h.sandbox.state().target_groups as Record<string, { status: string }>;
    expect(items.map((i) => stored[i.targetGroupId].status)).toEqual(['live', 'live', 'live']);
    const again = await h.activities.launchAndAwaitBatch({ items });
    expect(again.results.every((r) => r.ok)).toBe(true);
    expect(Object.keys(h.sandbox.state().fielding_runs)).toHaveLength(3);
  });

  it('returns a launch whose job failed as a result with the job, for the workflow to decide', async () => {
    const items = await drafts(2);
    h.sandbox.setFaults({ job_failure_rate: 1 });
    try {
      const { results } = await h.activities.launchAndAwaitBatch({ items });
      for (const r of results) {
        if (!r.ok) throw new Error(r.failure.message);
        expect(r.job).toMatchObject({ status: 'Failed', done: true });
      }
    } finally {
      h.sandbox.setFaults({});
    }
  });

  it(`refuses more than ${BATCH_MAX} items before any call`, async () => {
    const before = h.sandbox.requests().length;
    const item = { ctx, projectId: 'p', targetGroupId: 't', endFieldingAt: '2027-06-30T00:00:00Z', idempotencyKey: 'k', wait };
    const error = await rejectionOf(h.activities.launchAndAwaitBatch({ items: Array.from({ length: BATCH_MAX + 1 }, () => item) }));
    expect(error).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(h.sandbox.requests()).toHaveLength(before);
  });
});
