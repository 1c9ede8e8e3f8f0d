// ensureDraftTargetGroups against the real sandbox: every draft of a batch made once, a refused draft
// failing alone and final, lost answers coming back retryable with no duplicate on the next try.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EnsureDraftTargetGroupInput } from '../../activities';
import { DRAFT_BATCH_MAX } from '../../activities/target-groups';
import { rejectionOf } from './helpers/mock-api';
import { ctx, draftTargetGroup, startSandboxHarness, type SandboxHarness } from './helpers/sandbox-harness';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const apiLog = () => h.sandbox.requests().filter((r) => r.path.startsWith('/v1/'));

async function newProject(): Promise<string> {
  const { project } = await h.activities.ensureProject({
    ctx, idempotencyKey: 'p:batch', desired: { name: 'Batch', project_customer_reference_number: 'PO-B', business_unit_id: '2001' },
  });
  return project.id;
}

function items(projectId: string, n: number, overrides: (i: number) => Record<string, unknown> = () => ({})): EnsureDraftTargetGroupInput[] {
  return Array.from({ length: n }, (_, i) => ({
    ctx,
    projectId,
    idempotencyKey: `study/tg/${i}`,
    desired: draftTargetGroup({ name: `TG ${i}`, target_group_customer_reference_number: `PO-B-${i}`, ...overrides(i) }),
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
  });

  it('a draft the API refuses fails alone and as final; the others are made', async () => {
    const projectId = await newProject();
    const batch = items(projectId, 4, (i) => (i === 2 ? { filling_goal: 0 } : {}));
    const { results } = await h.activities.ensureDraftTargetGroups({ items: batch });
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true]);
    const refused = results[2];
    if (refused.ok) throw new Error('expected a failure');
    expect(refused.retryable).toBe(false);
    expect(refused.failure.message).toMatch(/filling_goal/);
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

  it(`refuses more than ${DRAFT_BATCH_MAX} drafts as invalid input, before any call`, async () => {
    const projectId = await newProject();
    const before = apiLog().length;
    const error = await rejectionOf(h.activities.ensureDraftTargetGroups({ items: items(projectId, DRAFT_BATCH_MAX + 1) }));
    expect(error).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(apiLog()).toHaveLength(before);
  });
});
