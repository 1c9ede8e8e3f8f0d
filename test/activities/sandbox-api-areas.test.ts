// Profiles, feasibility, price, performance, calendar and webhooks against the real sandbox, in the current and an
// older API version (the version adapter must make both look the same to the caller).
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers/mock-api';
import { runWithRetries } from './helpers/retry-like-temporal';
import { draftTargetGroup } from './helpers/sandbox-harness';
import { useSandboxHarness } from '../fixtures/activities';
import { testDialect } from '../helpers/test-profile';

const h = useSandboxHarness();

/** Profiles on the reference's wire (RequestDraftRegularProfileV3): no ids or texts; a target without a quota is `object: nominal`. */
const gender = {
  object: 'regular', name: 'Gender', quotas_enabled: true,
  targets: [
    { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'male', completes_goal: 100 } },
    { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'female', completes_goal: 100 } },
  ],
};
const age = {
  object: 'regular', name: 'Age', quotas_enabled: false,
  targets: [
    { object: 'nominal', conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }] },
    { object: 'nominal', conditions: [{ object: 'range', question_id: 42, min: 35, max: 99 }] },
  ],
};
const profiling = { profile_adjustment_type: 'nominal', profiles: [gender, age] };

describe.each(['2025-12-18', '2025-02-17'] as const)('sandbox API areas in %s', (apiVersion) => {
  const ctx = { accountId: '1001', apiVersion };

  async function draft() {
    const { project } = await h.activities.ensureProject({ ctx, idempotencyKey: 'p', desired: { name: 'Project P', project_customer_reference_number: 'PO-A', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } });
    const { targetGroup } = await h.activities.ensureDraftTargetGroup({ ctx, projectId: project.id, idempotencyKey: 't', desired: draftTargetGroup({ locale: 'en_US', filling_goal: 200 }) });
    return { ctx, projectId: project.id, targetGroupId: targetGroup.id };
  }

  it('profiles: validate, a draft created with its profiling, read back in 2025-12-18 shape, the supplier quota distribution of a profile', async () => {
    if (apiVersion !== '2025-12-18') {
      // Profiles travel in the 2025-12-18 shapes only (the spec's version-forward policy): refused before any call.
      const target = await draft();
      expect(await rejectionOf(h.activities.validateProfiles({ ctx, request: { locale: 'en_US', completes_goal: 200, profiling } }))).toMatchObject({ type: 'invalid_activity_input' });
      expect(await rejectionOf(h.activities.manageProfiles({ ...target, request: { completes_goal: 200, profiling } }))).toMatchObject({ type: 'invalid_activity_input' });
      return;
    }
    expect(await h.activities.validateProfiles({ ctx, request: { locale: 'en_US', completes_goal: 200, profiling } })).toEqual({ valid: true });
    const twice = { ...gender, targets: [gender.targets[0], gender.targets[0]] };
    const invalid = await h.activities.validateProfiles({ ctx, request: { locale: 'en_US', completes_goal: 200, profiling: { profile_adjustment_type: 'nominal', profiles: [twice] } } });
    expect(invalid.valid).toBe(false);
    expect(invalid.object).toBe('unprocessable_entity_error');
    expect(invalid.invalidParams?.map((p) => p.reason)).toContain('duplicate_condition_039');

    // One create call carries the profiles.
    const { project } = await h.activities.ensureProject({ ctx, idempotencyKey: 'p', desired: { name: 'Project P', project_customer_reference_number: 'PO-A', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } });
    const created = await h.activities.ensureDraftTargetGroup({ ctx, projectId: project.id, idempotencyKey: 't', desired: draftTargetGroup({ locale: 'en_US', filling_goal: 200, profiling }) });
    const target = { ctx, projectId: project.id, targetGroupId: created.targetGroup.id };
    const read = (await h.activities.readTargetGroupState({ ...target, reads: [] })).state.fields as unknown as { profiling: { profile_adjustment_type: string; profiles: { id: string; object: string; targets: { id: string; conditions: unknown[]; quota?: { completes_goal: number } }[] }[] } };
    const managed = read.profiling;
    expect(managed.profile_adjustment_type).toBe('nominal');
    expect(managed.profiles.map((p) => [p.object, p.targets.length])).toEqual([['regular', 2], ['regular', 2]]);
    expect(managed.profiles[0].targets[0].conditions).toEqual([{ object: 'selection', question_id: 43, option: '1' }]);
    expect(managed.profiles[0].targets[0].quota!.completes_goal).toBe(100);

    const window = { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' };
    const { profile } = await h.activities.supplierQuotaDistribution({ ctx, request: { locale: 'en_US', completes_goal: 200, profile_adjustment_type: 'nominal', ...window, profile: gender } });
    expect(profile.targets.map((t) => t.quota?.completes_goal)).toEqual([100, 100]);
  });

  it('feasibility, price prediction and performance', async () => {
    const target = await draft();
    const fielding_specification = { start_at: new Date(Date.now() + 3_600_000).toISOString(), end_at: new Date(Date.now() + 15 * 86_400_000).toISOString() };
    const request = { business_unit_id: 2001, locale: 'en_US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 200, fielding_specification, profiling: { profile_adjustment_type: 'percentage', profiles: [gender] } };
    const { feasibility } = await h.activities.calculateFeasibility({ ctx, request });
    expect(feasibility.suggested_completes_goal_range!.max).toBeGreaterThanOrEqual(200);
    expect(feasibility.suggested_price.currency_code).toBe('USD');
    const { prediction } = await h.activities.generatePricePrediction({ ctx, businessUnitId: '2001', query: { type: 'rate_card', country_code: 'US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10 } });
    expect(prediction).toMatchObject({ buyer_account_id: 1001, buyer_business_unit_id: '2001', open_exchange_price: { pricing_context: { type: 'rate_card' } } });
    // Performance is a launched group's: a draft's is the API's final not_found_error (the report's watch reads it best effort).
    expect(await rejectionOf(h.activities.getTargetGroupPerformance(target))).toMatchObject({ type: 'not_found_error', nonRetryable: true });
  });

  it('calendar: suggestions, and a bad request is non-retryable bad_request', async () => {
    const range = await h.activities.suggestTimeRange({ ctx, locale: 'en_US', days: 10 });
    expect(Date.parse(range.suggestedEnd)).toBeGreaterThan(Date.parse(range.suggestedStart));
    const days = await h.activities.suggestDays({ ctx, request: { locale: 'en_US', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 300 } });
    expect(days.suggestion.days).toBeGreaterThanOrEqual(1);
    const f = await rejectionOf(h.activities.suggestDays({ ctx, request: { locale: 'en_US', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 1, completes: 300 } }));
    // The calendar's error object is the spec's `bad_request` in its dialect, the reference's `bad_request_error` in cint's.
    expect(f).toMatchObject({ type: testDialect() === 'spec' ? 'bad_request' : 'bad_request_error', nonRetryable: true });
  });

  it('webhooks: the secret reaches the store only; updates keep compression explicit', async () => {
    h.secrets.clear();
    const spec = testDialect() === 'spec';
    const gzip = { url: 'http://127.0.0.1:9/studyflow-hook', events: ['target-group-updated'], compression: 'gzip' as const };
    // The spec's compression; the reference has none, and the cint client refuses to drop it in silence.
    if (!spec) expect(await rejectionOf(h.activities.createWebhook({ ctx, idempotencyKey: 'wh-gzip', desired: gzip }))).toMatchObject({ type: 'invalid_activity_input' });
    const desired = spec ? gzip : { url: gzip.url, events: gzip.events };
    const created = await h.activities.createWebhook({ ctx, idempotencyKey: 'wh', desired });
    expect(created.created).toBe(true);
    expect(JSON.stringify(created)).not.toMatch(/secret/);
    expect(h.secrets.get(`1001/${created.webhook.id}`)).toMatch(/\S{16,}/);
    expect((await h.activities.createWebhook({ ctx, idempotencyKey: 'wh', desired })).created).toBe(false);
    if (spec) {
      const kept = await h.activities.updateWebhook({ ctx, webhookId: created.webhook.id, desired });
      expect(kept.webhook.compression).toBe('gzip');
      const dropped = await h.activities.updateWebhook({ ctx, webhookId: created.webhook.id, desired: { url: desired.url, events: desired.events } });
      expect(dropped.webhook.compression).toBeNull();
    } else {
      const updated = await h.activities.updateWebhook({ ctx, webhookId: created.webhook.id, desired: { url: gzip.url, events: ['target-group-updated', 'session-updated'] } });
      expect(updated.webhook.events).toEqual(['target-group-updated', 'session-updated']);
    }
    expect(await h.activities.deleteWebhook({ ctx, webhookId: created.webhook.id })).toEqual({ deleted: true });
    expect((await h.activities.listWebhooks({ ctx })).webhooks).toEqual([]);
  });
});

describe('sandbox webhooks under drop-after-commit', () => {
  it('a lost create answer is recovered by the Idempotency-Key replay, secret stored, one webhook', async () => {
    const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
    h.secrets.clear();
    await h.activities.getAccounts({ ctx });
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const run = await runWithRetries(
      () => h.activities.createWebhook({ ctx, idempotencyKey: 'wh-drop', desired: { url: 'http://127.0.0.1:9/drop', events: ['target-group-updated'] } }),
      { maximumAttempts: 5, initialIntervalMs: 5 },
      () => h.sandbox.setFaults({}),
    );
    expect(run.attempts).toBe(2);
    expect((await h.activities.listWebhooks({ ctx })).webhooks).toHaveLength(1);
    expect(h.secrets.get(`1001/${run.result.webhook.id}`)).toBeTruthy();
  });
});
