// The observe step against the real sandbox: every target group found, in the study's order,
// read a few at a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeStudyActivities } from '../../activities/observe-study';
import { apiCaller } from '../../api/operations/caller';
import { observeStudy as observeStudyOperation } from '../../api/operations/observe-study';
import { listDigest } from '../../blobs/id-list-digest';
import type { TargetGroupDesired } from '../../activities';
import { loadStudyFile } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { draftFieldingSpecification } from '../../plan/launch-gates';
import type { DesiredStudy } from '../../plan/types';
import { ctx, startSandboxHarness, type SandboxHarness } from './helpers/sandbox-harness';

const KEYS = Array.from({ length: 12 }, (_, i) => `market_${String(i).padStart(2, '0')}`);

const STUDY = `format: studyflow/v1
study: observe-order
account: "1001"
business_unit: "2001"
project:
  name: Observe order
  project_customer_reference_number: PO-OBSERVE-ORDER
defaults:
  locale: en_US
  expected_incidence_rate: 0.5
  expected_length_of_interview_minutes: 10
  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
  collects_pii: false
target_groups:
${KEYS.map((k) => `  ${k}:\n    live_url: https://survey.example.com/s/${k}?rid=[%RID%]\n    filling_goal: 50\n`).join('')}`;

let h: SandboxHarness;
let desired: DesiredStudy;
let dir: string;
beforeAll(async () => {
  h = await startSandboxHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-observe-'));
  const file = path.join(dir, 'study.yaml');
  fs.writeFileSync(file, STUDY);
  const loaded = await loadStudyFile(file);
  if (!loaded.study) throw new Error(`the fixture does not validate: ${JSON.stringify(loaded.diagnostics)}`);
  desired = desiredStudyOf(loaded.study.study, {});
});
afterAll(async () => {
  await h?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('observeStudy', () => {
  it('finds every target group by its reference, in the order of the study file, reading several at once', async () => {
    const { project } = await h.activities.ensureProject({ ctx, idempotencyKey: 'observe/project', desired: desired.project });
    const ids: Record<string, string> = {};
    // Created in reverse, so the API's own order is not the study's.
    for (const tg of [...desired.targetGroups].reverse()) {
      const { targetGroup } = await h.activities.ensureDraftTargetGroup({ ctx, projectId: project.id, idempotencyKey: `observe/${tg.key}`, desired: { ...tg.draft, fielding_specification: draftFieldingSpecification(tg, Date.now()) } as TargetGroupDesired });
      ids[tg.key] = targetGroup.id;
    }
    h.sandbox.setFaults({ latency_ms: 40 });
    const from = h.sandbox.requests().length;
    const { observeStudy } = observeStudyActivities({ api: h.api, blobs: h.blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
    const observed = await observeStudy({ ctx, desired, known: { targetGroupIds: {}, exclusionGroupIds: {} } });
    h.sandbox.setFaults({ latency_ms: 0 });

    expect(observed.project?.id).toBe(project.id);
    expect(Object.keys(observed.targetGroups)).toEqual(KEYS);
    expect(Object.fromEntries(Object.entries(observed.targetGroups).map(([k, tg]) => [k, tg.id]))).toEqual(ids);

    // The per-target-group reads overlapped, at most 8 at a time.
    const reads = h.sandbox
      .requests()
      .slice(from)
      .filter((r) => r.path.includes('/target-groups'))
      .map((r) => ({ start: Date.parse(r.time), end: Date.parse(r.time) + r.duration_ms }));
    const inFlight = reads.map((r) => reads.filter((o) => o.start <= r.start && o.end > r.start).length);
    expect(Math.max(...inFlight)).toBeGreaterThan(1);
    expect(Math.max(...inFlight)).toBeLessThanOrEqual(8);

    // Exclusion-group membership comes from each declared group's member list: no read per target group.
    const perTargetGroupGroupReads = h.sandbox.requests().slice(from).filter((r) => /\/target-groups\/[^/]+\/exclusion-groups/.test(r.path));
    expect(perTargetGroupGroupReads).toEqual([]);
  });

  it('reads a launched target group\'s live state (11 calls in all), and a managed one the file no longer declares', async () => {
    const { observeStudy } = observeStudyActivities({ api: h.api, blobs: h.blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
    const first = await observeStudy({ ctx, desired, known: { targetGroupIds: {}, exclusionGroupIds: {} } });
    const [liveKey, droppedKey] = KEYS;
    const launch = async (key: string) => {
      const target = { ctx, projectId: first.project!.id, targetGroupId: first.targetGroups[key].id };
      const { jobId } = await h.activities.launchFromDraft({ ...target, idempotencyKey: `observe/launch/${key}`, endFieldingAt: '2027-06-30T00:00:00Z' });
      if (jobId) await h.activities.awaitJob({ ...target, kind: 'launch', jobId, pollInitialMs: 20, pollMaxMs: 100, budgetMs: 10_000 });
    };
    await launch(liveKey);
    await launch(droppedKey);
    const one = { ...desired, targetGroups: desired.targetGroups.filter((tg) => tg.key === liveKey) };
    const from = h.sandbox.requests().length;
    const observed = await observeStudy({ ctx, desired: one, known: { targetGroupIds: { [liveKey]: first.targetGroups[liveKey].id, [droppedKey]: first.targetGroups[droppedKey].id }, exclusionGroupIds: {} } });
    const live = observed.targetGroups[liveKey];
    expect(live).toMatchObject({
      status: 'live',
      fieldingRun: { status: 'live', endFieldingAt: expect.any(String), etag: expect.any(String) },
      fillingGoal: { completesGoal: 50 },
      details: { name: expect.any(String), live_url: `https://survey.example.com/s/${liveKey}?rid=[%RID%]` },
      costPerInterview: { value: expect.any(String), currency_code: expect.any(String) },
      allocations: { open_exchange_allocations: expect.any(Object), private_exchange_allocations: expect.any(Object) },
      fieldingAssistant: { assignment: expect.any(Object), etag: expect.any(String) },
      completes: expect.any(Number),
    });
    const perGroup = (id: string) => h.sandbox.requests().slice(from).filter((r) => r.path.includes(`/target-groups/${id}`)).length;
    // The status read (GET TG's 301, overview, fielding runs, details) and readLiveTargetGroup's seven.
    expect(perGroup(live.id)).toBe(11);
    // The dropped one: its status and run only (the plan names it and removed_target_groups decides).
    expect(observed.targetGroups[droppedKey]).toMatchObject({ status: 'live', fieldingRunId: expect.any(String) });
    expect(observed.targetGroups[droppedKey].fillingGoal).toBeUndefined();
    expect(Object.keys(observed.targetGroups)).toEqual([liveKey, droppedKey]);
  });
  it('is one mapping: the plain operation over a caller of its own (as `studyflow plan` runs it) reads what the activity reads, its progress told to the caller', async () => {
    const { observeStudy } = observeStudyActivities({ api: h.api, blobs: h.blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
    const known = { targetGroupIds: {}, exclusionGroupIds: {} };
    const byActivity = await observeStudy({ ctx, desired, known });
    const progress: Record<string, unknown>[] = [];
    const caller = apiCaller(h.api, { ...ctx, progress: (details) => progress.push(details) });
    const byOperation = await observeStudyOperation(caller, { desired, known }, { digest: listDigest });
    expect(byOperation).toEqual(byActivity);
    expect(Object.keys(byOperation.targetGroups)).toEqual(KEYS);
    expect(progress.filter((p) => 'observedTargetGroups' in p).map((p) => p.observedTargetGroups).sort((a, b) => Number(a) - Number(b))).toEqual(KEYS.map((_, i) => i + 1));
  });
});
