// Fault injection against the real sandbox: expected attempts, Retry-After honoured (request-log timestamps),
// zero duplicates after drop-after-commit, one token per lifetime, 403 refresh, busy jobs, timeouts.
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers/mock-api';
import { runWithRetries } from './helpers/retry-like-temporal';
import { ctx, draftTargetGroup, startSandboxHarness } from './helpers/sandbox-harness';
import { useSandboxHarness } from '../fixtures/activities';

const h = useSandboxHarness();

const policy = { maximumAttempts: 30, initialIntervalMs: 5, backoffCoefficient: 1.5, maximumIntervalMs: 50 };
/** RSIDs are UUIDs (the reference); the sandbox refuses any other line. */
const rsid = (n: number) => `0e8b5c1a-1234-4abc-8def-${String(n).padStart(12, '0')}`;
const apiLog = () => h.sandbox.requests().filter((r) => r.path.startsWith('/v1/'));
const tokenLog = () => h.sandbox.requests().filter((r) => r.path === '/auth/oauth/token');

async function newProject(activities = h.activities, reference = 'PO-F') {
  return (await activities.ensureProject({ ctx, idempotencyKey: `p:${reference}`, desired: { name: 'Faults F', project_customer_reference_number: reference, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } })).project.id;
}

describe('sandbox faults: retries', () => {
  it('429: fails retryably with nextRetryDelay = Retry-After, and the retry is not sent before it elapsed', async () => {
    const { activities } = h.connect();
    const projectId = await newProject(activities); // token fetched before the fault
    h.sandbox.setFaults({ rate_limit_rate: 1, retry_after_seconds: 1 });
    const run = await runWithRetries(() => activities.getProject({ ctx, projectId }), policy, () => h.sandbox.setFaults({}));
    expect(run.attempts).toBe(2);
    expect(run.failures[0]).toMatchObject({ type: 'rate_limited', nonRetryable: false, nextRetryDelay: 1000 });
    const gets = apiLog().filter((r) => r.method === 'GET' && r.path.endsWith(projectId));
    expect(gets.map((r) => r.status)).toEqual([429, 200]);
    expect(Date.parse(gets[1].time) - Date.parse(gets[0].time)).toBeGreaterThanOrEqual(1000);
  });

  it('503 error rate (seeded): attempts = injected failures + 1, and one project in the end', async () => {
    const { activities } = h.connect();
    await activities.getAccounts({ ctx }); // token first
    h.sandbox.setFaults({ error_rate: 0.5, seed: 3 });
    const run = await runWithRetries(() => newProject(activities, 'PO-503'), policy);
    h.sandbox.setFaults({});
    const unavailable = apiLog().filter((r) => r.status === 503);
    expect(run.failures.length).toBeGreaterThan(0);
    expect(run.attempts).toBe(unavailable.length + 1);
    for (const f of run.failures) expect(f).toMatchObject({ type: 'server_error', nonRetryable: false });
    const projects = Object.values(h.sandbox.state().projects) as { project_customer_reference_number: string }[];
    expect(projects.filter((p) => p.project_customer_reference_number === 'PO-503')).toHaveLength(1);
  });

  it('drop-after-commit on ensureProject: the retry finds the committed project, no duplicate', async () => {
    const { activities } = h.connect();
    await activities.getAccounts({ ctx });
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const run = await runWithRetries(
      () => activities.ensureProject({ ctx, idempotencyKey: 'p:drop', desired: { name: 'Drop D', project_customer_reference_number: 'PO-DROP', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } }),
      policy,
      () => h.sandbox.setFaults({}),
    );
    expect(run.attempts).toBe(2);
    expect(run.failures[0]).toMatchObject({ type: 'network_error', nonRetryable: false });
    expect(run.result.created).toBe(false);
    expect(apiLog().filter((r) => r.dropped)).toHaveLength(1);
    expect(Object.keys(h.sandbox.state().projects)).toHaveLength(1);
  });

  it('drop-after-commit on a target group without a natural key: the Idempotency-Key replays the same draft', async () => {
    const { activities } = h.connect();
    const projectId = await newProject(activities);
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const run = await runWithRetries(
      () => activities.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'tg:no-ref', desired: draftTargetGroup() }),
      policy,
      () => h.sandbox.setFaults({}),
    );
    expect(run.attempts).toBe(2);
    expect(Object.keys(h.sandbox.state().target_groups)).toEqual([run.result.targetGroup.id]);
  });

  it('sustained drops and errors (seeded) over a whole setup: zero duplicate resources or jobs', async () => {
    const { activities } = h.connect();
    await activities.getAccounts({ ctx });
    h.sandbox.setFaults({ drop_after_commit_rate: 0.5, error_rate: 0.2, seed: 5 });
    const stored = await h.blobs.put([`${rsid(1)}\n${rsid(2)}\n${rsid(3)}\n`]);
    for (const n of [1, 2, 3]) {
      const { result: projectId } = await runWithRetries(() => newProject(activities, `PO-S${n}`), policy);
      const { result: tg } = await runWithRetries(
        () => activities.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: `tg:S${n}`, desired: draftTargetGroup({ target_group_customer_reference_number: `SRN-${n}` }) }),
        policy,
      );
      const { result: upload } = await runWithRetries(
        () => activities.uploadIdList({ ctx, projectId, targetGroupId: tg.targetGroup.id, entityType: 'RSID', list: stored, idempotencyKey: `ids:S${n}` }),
        policy,
      );
      expect(upload.jobId).toBeTruthy();
      await runWithRetries(() => activities.ensureExclusionGroup({ ctx, idempotencyKey: 'eg:S', desired: { name: 'shared' } }), policy);
    }
    h.sandbox.setFaults({});
    expect(apiLog().some((r) => r.dropped)).toBe(true);
    const state = h.sandbox.state();
    expect(Object.keys(state.projects)).toHaveLength(3);
    expect(Object.keys(state.target_groups)).toHaveLength(3);
    expect(Object.keys(state.exclusion_groups)).toHaveLength(1);
    const uploadJobs = Object.values(state.jobs as Record<string, { kind?: string; target_group_id?: string }>);
    const perTargetGroup = new Map<string, number>();
    for (const job of uploadJobs) if (job.target_group_id) perTargetGroup.set(job.target_group_id, (perTargetGroup.get(job.target_group_id) ?? 0) + 1);
    expect([...perTargetGroup.values()]).toEqual([1, 1, 1]);
  });
});

describe('sandbox faults: tokens', () => {
  it('one token request per process per token lifetime', async () => {
    const { activities, api } = h.connect();
    await Promise.all(Array.from({ length: 20 }, () => activities.getAccounts({ ctx })));
    for (let i = 0; i < 20; i += 1) await activities.getAccounts({ ctx });
    expect(tokenLog()).toHaveLength(1);
    expect(api.tokenRequestCount).toBe(1);
  });

  it('short-lived tokens are renewed before they expire: no 403s, one token per half lifetime', async () => {
    h.sandbox.setFaults({ token_ttl_seconds: 2 });
    const { activities } = h.connect();
    const started = Date.now();
    while (Date.now() - started < 3300) {
      await activities.getAccounts({ ctx });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(apiLog().filter((r) => r.status === 403)).toEqual([]);
    expect(tokenLog().length).toBeGreaterThanOrEqual(3);
    expect(tokenLog().length).toBeLessThanOrEqual(5);
  });
});

describe('sandbox faults: expired token on the server clock', () => {
  it('403 authorization_error -> exactly one token refresh and one replay', async () => {
    let now = Date.now();
    const timed = await startSandboxHarness({ clock: () => now });
    try {
      await timed.activities.getAccounts({ ctx });
      now += 86_400_000 + 1000; // the server considers the cached token expired; the client does not know yet
      await timed.activities.getAccounts({ ctx });
      const log = timed.sandbox.requests().map((r) => `${r.method} ${r.path} ${r.status}`);
      expect(log).toEqual([
        'POST /auth/oauth/token 200',
        'GET /v1/accounts 200',
        'GET /v1/accounts 403',
        'POST /auth/oauth/token 200',
        'GET /v1/accounts 200',
      ]);
    } finally {
      await timed.close();
    }
  });
});

describe('sandbox faults: busy jobs and timeouts', () => {
  it('a second upload while a job runs is 409 job_already_running, retryable after a wait', async () => {
    const { activities } = h.connect();
    const projectId = await newProject(activities);
    const { targetGroup } = await activities.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'tg', desired: draftTargetGroup() });
    h.sandbox.setFaults({ job_duration_ms: 60_000 });
    const a = await h.blobs.put([`${rsid(11)}\n`]);
    const b = await h.blobs.put([`${rsid(12)}\n`]);
    await activities.uploadIdList({ ctx, projectId, targetGroupId: targetGroup.id, entityType: 'RSID', list: a, idempotencyKey: 'a' });
    const f = await rejectionOf(activities.uploadIdList({ ctx, projectId, targetGroupId: targetGroup.id, entityType: 'RSID', list: b, idempotencyKey: 'b' }));
    expect(f).toMatchObject({ type: 'job_already_running', nonRetryable: false });
    expect(f.nextRetryDelay).toBeGreaterThan(0);
  });

  it('job_failure_rate: the job ends Failed with a reason', async () => {
    const { activities } = h.connect();
    const projectId = await newProject(activities);
    const { targetGroup } = await activities.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'tg', desired: draftTargetGroup() });
    h.sandbox.setFaults({ job_failure_rate: 1, job_duration_ms: 0 });
    const list = await h.blobs.put([`${rsid(21)}\n`]);
    const { jobId } = await activities.uploadIdList({ ctx, projectId, targetGroupId: targetGroup.id, entityType: 'RSID', list, idempotencyKey: 'f' });
    const job = await activities.getIdListJob({ ctx, projectId, targetGroupId: targetGroup.id, jobId });
    expect(job.status).toBe('Failed');
    expect(job.failureReason).toBeTruthy();
  });

  it('latency beyond the headers timeout is a retryable request_timeout', async () => {
    const { activities } = h.connect({ timeouts: { headersMs: 300 } });
    await activities.getAccounts({ ctx });
    h.sandbox.setFaults({ latency_ms: 2500 }); // undici's headers timer ticks about every 0.5 s
    const f = await rejectionOf(activities.getAccounts({ ctx }));
    expect(f).toMatchObject({ type: 'request_timeout', nonRetryable: false });
  });
});
