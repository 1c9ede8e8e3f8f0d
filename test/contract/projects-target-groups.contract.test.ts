// Projects and draft target groups on the reference's wire, beyond the per-operation checks of
// wire-contract.test.ts: the client against the real sandbox for the headers and statuses these operations
// live by (the ETag from the read as If-Match, 412 on a stale one, the create's ETag, ids used without a
// read back) and for what re-apply needs (a draft read back holds every field studyflow sent).
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient, type ApiRequest, type ApiResponse, type DemandApiClient } from '../../api/http/demand-api-client';
import { createActivities } from '../../activities/index';
import { holdsDesired } from '../../plan/compare';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testSandboxOptions } from '../helpers/test-profile';
import { rejectionOf } from '../activities/helpers/mock-api';
import { referenceAvailable, requiredAnswerHeaders } from './reference-openapi';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { recordingClient, type RecordedExchange } from './recording-client';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const PM2 = '6f1c2a4e-3002-4c8e-9d2b-000000003002';
let sandbox: RunningSandbox;
let agent: Agent;
let inner: DemandApiClient;
const exchanges: RecordedExchange[] = [];
/** When set, the ETag of every project read is replaced by this (a stale one). */
let staleEtag: string | undefined;

function activities() {
  const client: DemandApiClient = {
    config: inner.config,
    get tokenRequestCount() {
      return inner.tokenRequestCount;
    },
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      const res = await inner.request<T>(req);
      if (staleEtag && req.method === 'GET' && /\/projects\/[^/]+$/.test(req.path) && res.headers.etag) return { ...res, headers: { ...res.headers, etag: staleEtag } };
      return res;
    },
  };
  return createActivities({
    api: recordingClient(client, exchanges),
    blobs: createBlobStore({ dir: '/nonexistent-blob-dir-unused' }),
    webhookSecrets: { save: async () => undefined, has: async () => false },
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  agent = new Agent({ keepAliveTimeout: 1000 });
  inner = createDemandApiClient({
    config: sandboxApiConfig(sandbox),
    dispatcher: agent,
  });
});

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
});

const of = (method: string, pattern: RegExp) => exchanges.filter((e) => e.method === method && pattern.test(e.path.split('?')[0]));

describe('projects on the wire', () => {
  it('creates with ProjectInfo and uses the 202 {id}; the answer carries the ETag the reference requires', async () => {
    const a = activities();
    const desired = { name: 'Wire project one', project_manager_id: PM, project_customer_reference_number: 'PO-WIRE-1' };
    const { project, created } = await a.ensureProject({ ctx, idempotencyKey: 'wire/p1', desired });
    expect(created).toBe(true);
    expect(project).toEqual({ ...desired, id: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    const post = of('POST', /\/projects$/).at(-1)!;
    expect(post.status).toBe(202);
    expect(post.json).toEqual(desired);
    expect(post.headers.etag).toMatch(/\S/);
    if (referenceAvailable) expect(requiredAnswerHeaders('create_project', 202)).toContain('etag');
    // No read of the project it just made.
    expect(of('GET', new RegExp(`/projects/${project.id}$`))).toEqual([]);
  });

  it('updates with If-Match from its own read and an Idempotency-Key; the next update reads the new ETag', async () => {
    const a = activities();
    const desired = { name: 'Wire project two', project_manager_id: PM, project_customer_reference_number: 'PO-WIRE-2' };
    const id = (await a.ensureProject({ ctx, idempotencyKey: 'wire/p2', desired })).project.id;
    await a.updateProject({ ctx, projectId: id, idempotencyKey: 'wire/p2/u1', desired: { ...desired, name: 'Wire project two, renamed' } });
    await a.updateProject({ ctx, projectId: id, idempotencyKey: 'wire/p2/u2', desired: { ...desired, project_manager_id: PM2 } });
    const reads = of('GET', new RegExp(`/projects/${id}$`));
    const puts = of('PUT', new RegExp(`/projects/${id}$`));
    expect(puts.map((p) => p.status)).toEqual([200, 200]);
    expect(puts.map((p) => p.ifMatch)).toEqual(reads.map((r) => r.headers.etag));
    expect(new Set(puts.map((p) => p.ifMatch)).size).toBe(2);
    expect(puts.map((p) => p.idempotencyKey)).toEqual(['wire/p2/u1', 'wire/p2/u2']);
    expect((await a.getProject({ ctx, projectId: id })).project).toMatchObject({ ...desired, project_manager_id: PM2, human_readable_id: expect.stringMatching(/^[0-9A-Z]{6}$/) });
  });

  it('a stale ETag is refused with 412 precondition_failed_error, final, and nothing changes', async () => {
    const a = activities();
    const desired = { name: 'Wire project three', project_manager_id: PM, project_customer_reference_number: 'PO-WIRE-3' };
    const id = (await a.ensureProject({ ctx, idempotencyKey: 'wire/p3', desired })).project.id;
    staleEtag = 'W/"stale.0"';
    try {
      const f = await rejectionOf(a.updateProject({ ctx, projectId: id, idempotencyKey: 'wire/p3/u', desired: { ...desired, name: 'Never written' } }));
      // The client throws on a status the call does not accept, so the failure (not the recorder) holds the answer.
      expect(f).toMatchObject({ type: 'precondition_failed', nonRetryable: true });
      expect(f.details?.[0]).toMatchObject({ status: 412 });
    } finally {
      staleEtag = undefined;
    }
    expect((await a.getProject({ ctx, projectId: id })).project.name).toBe('Wire project three');
  });
});

describe('draft target groups on the wire', () => {
  const draft = {
    name: 'Wire draft one', business_unit_id: '2001', locale: 'eng_us', expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 10, filling_goal: 100,
    project_manager_id: PM, collects_pii: false, study_type_code: 'adhoc', target_group_customer_reference_number: 'wire_tg-1',
    fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
    fielding_assistant_assignment: { quota_overlay: { prevent_overfill: true, balance_fill: false } },
    allocations: { open_exchange_allocations: { exchange_min_percentage: 10, exchange_max_percentage: 90, blocked_supplier_ids: ['17'], groups: [{ group_name: 'panels', min_percentage: 0, max_percentage: 50, suppliers: ['3', '4'] }] } },
  };

  it('creates (201 {id}, no read back), updates (204), and the draft read back holds every field sent, so re-apply writes nothing', async () => {
    const a = activities();
    const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'wire/tg-project', desired: { name: 'Wire drafts', project_manager_id: PM, project_customer_reference_number: 'PO-WIRE-TG' } })).project.id;
    const { targetGroup, created } = await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'wire/tg-1', desired: draft });
    expect(created).toBe(true);
    expect(of('POST', /\/target-groups$/).at(-1)).toMatchObject({ status: 201, body: { id: targetGroup.id } });
    expect(of('GET', new RegExp(`/target-groups/${targetGroup.id}$`))).toEqual([]);
    const changed = { ...draft, filling_goal: 150, fielding_assistant_assignment: {} };
    await a.updateDraftTargetGroup({ ctx, projectId, targetGroupId: targetGroup.id, desired: changed });
    expect(of('PUT', new RegExp(`/target-groups/${targetGroup.id}$`)).at(-1)).toMatchObject({ status: 204 });
    const { state } = await a.readTargetGroupState({ ctx, projectId, targetGroupId: targetGroup.id, reads: [] });
    expect(state).toMatchObject({ id: targetGroup.id, status: 'draft', fieldingRunId: null });
    // Every field sent is one the draft read carries (allocations read back from the answer's shape, completes_goal as filling_goal).
    expect(Object.keys(changed).filter((field) => !state.fieldsRead.includes(field))).toEqual([]);
    expect(Object.entries(changed).filter(([field, value]) => !holdsDesired(value, state.fields[field])).map(([field]) => field)).toEqual([]);
    // Found again by its reference number: no second draft.
    expect((await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'wire/tg-1', desired: changed })).created).toBe(false);
  });

  it('a body the reference refuses is refused by the sandbox too, with its error object (400 bad_request_error, invalid_params)', async () => {
    const a = activities();
    const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'wire/tg-bad-project', desired: { name: 'Wire refusals', project_manager_id: PM, project_customer_reference_number: 'PO-WIRE-BAD' } })).project.id;
    const bad = { ...draft, target_group_customer_reference_number: 'wire_tg-bad', allocations: { open_exchange_allocations: { ...draft.allocations.open_exchange_allocations, exchange_min_percentage: 95 } } };
    const f = await rejectionOf(a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'wire/tg-bad', desired: bad }));
    expect(f).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
    expect(f.details?.[0]).toMatchObject({
      status: 400,
      invalid_params: [{ name: 'allocations.open_exchange_allocations.exchange_min_percentage', reason: 'must not be above exchange_max_percentage' }],
    });
  });
});
