// Spec: "Resources and their fields › Respondent activity exclusion item" and
// "Endpoints › Respondent activity exclusions".
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { BASIC_ACCOUNT, P, draftBody, paramNames } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });
let projectId: string;
let tgId: string;
let path: string;
beforeEach(async () => {
  const made = await api.projectWithTargetGroup();
  projectId = made.project.id;
  tgId = made.tg.id;
  path = `${made.tgPath}/respondent-activity-exclusions`;
});

/**
 * The days each stored item of a target group excludes for (spec rule 5: periods are normalised to days). The
 * answers carry only the reference's fields, so the normalised days are read from the sandbox's state.
 */
const storedDays = (targetGroupId: string): number[] =>
  sb.state().target_groups[targetGroupId].respondent_activity_exclusions.map((item) => item.duration_days);

/** PUT the list; a success is 204 without a body (the reference), so the stored list is read back with GET. */
const put = async (items: unknown[], extra: Record<string, unknown> = {}) => {
  const res = await api.req('PUT', path, { body: { ...extra, respondent_activity_exclusions: items } });
  if (res.status !== 204) return res;
  expect(res.text).toBe('');
  return api.req('GET', path);
};

describe('Resources and their fields › Respondent activity exclusion item', () => {
  it('defaults respondent_statuses to ["Complete"] and duration to P90D (90 days)', async () => {
    const res = await put([{ type: 'project', id: projectId }]);
    expect(res.status).toBe(200);
    // Exactly the reference's item fields, plus the spec's respondent_statuses; the answer has no request-level duration.
    expect(res.body).toEqual({ respondent_activity_exclusions: [{ type: 'project', id: projectId, respondent_statuses: ['Complete'], duration: 'P90D' }] });
    expect(storedDays(tgId)).toEqual([90]);
  });

  it.each([
    ['P30D', 30],
    ['P2W', 14],
    ['P3M', 90],
    ['P1Y', 365],
    ['P1M1D', 31],
    ['P1D', 1],
    ['P396D', 396],
    ['P56W', 392],
    ['P1Y1M', 395],
  ])('normalises %s to %i days', async (duration, days) => {
    const res = await put([{ type: 'target-group', id: tgId, duration }]);
    expect(res.status).toBe(200);
    expect(res.body.respondent_activity_exclusions[0]).toEqual({ type: 'target-group', id: tgId, respondent_statuses: ['Complete'], duration });
    expect(storedDays(tgId)).toEqual([days]);
  });

  it.each(['P0D', 'P397D', 'P57W', 'P1Y2M', 'PT1H', 'P1DT1H', 'p30d', '30', 'P', 'P-1D', 30, true])('rejects duration %j with 400 naming the item field', async (duration) => {
    const res = await put([{ type: 'project', id: projectId, duration }]);
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['respondent_activity_exclusions[0].duration']);
  });

  it.each([[['Completed']], [[]], [['Complete', 'Complete']], ['Complete']])('rejects respondent_statuses %j', async (statuses) => {
    const res = await put([{ type: 'project', id: projectId, respondent_statuses: statuses }]);
    expect(res.status).toBe(400);
    expect(paramNames(res)[0]).toMatch(/^respondent_activity_exclusions\[0\]\.respondent_statuses/);
  });

  it('accepts every status enumeration value on an account with the feature', async () => {
    const all = ['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess'];
    const res = await put([{ type: 'project', id: projectId, respondent_statuses: all }]);
    expect(res.status).toBe(200);
    expect(res.body.respondent_activity_exclusions[0].respondent_statuses).toEqual(all);
  });

  it('answers 403 feature_not_enabled for statuses other than Complete on an account without the feature', async () => {
    const project = await api.createProject({}, { account: BASIC_ACCOUNT });
    const tg = await api.createTargetGroup(project.id, {}, { account: BASIC_ACCOUNT });
    const basicPath = `${P(BASIC_ACCOUNT)}/projects/${project.id}/target-groups/${tg.id}/respondent-activity-exclusions`;
    const before = await api.state();
    const refused = await api.req('PUT', basicPath, { body: { respondent_activity_exclusions: [{ type: 'project', id: project.id, respondent_statuses: ['Terminate'] }] } });
    expect(refused.status).toBe(403);
    expect(refused.body.object).toBe('feature_not_enabled');
    expect(await api.state()).toEqual(before);
    const allowed = await api.req('PUT', basicPath, { body: { respondent_activity_exclusions: [{ type: 'project', id: project.id, respondent_statuses: ['Complete'] }] } });
    expect(allowed.status).toBe(204);
  });

  it('lets the same project appear in several items with distinct status sets and their own durations', async () => {
    const res = await put([
      { type: 'project', id: projectId, respondent_statuses: ['Complete'], duration: 'P1Y' },
      { type: 'project', id: projectId, respondent_statuses: ['Terminate', 'OverQuota'], duration: 'P7D' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.respondent_activity_exclusions.map((i: { duration: string }) => i.duration)).toEqual(['P1Y', 'P7D']);
    expect(storedDays(tgId)).toEqual([365, 7]);
  });

  it('rejects the same reference twice with an identical status set (in any order)', async () => {
    const res = await put([
      { type: 'project', id: projectId, respondent_statuses: ['Terminate', 'Complete'] },
      { type: 'project', id: projectId, respondent_statuses: ['Complete', 'Terminate'], duration: 'P5D' },
    ]);
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['respondent_activity_exclusions[1].respondent_statuses']);
    const implicit = await put([{ type: 'target-group', id: tgId }, { type: 'target-group', id: tgId, respondent_statuses: ['Complete'] }]);
    expect(implicit.status).toBe(400);
  });

  it('answers 400 bad_request_error (the reference documents no 422 here) when a referenced project or target group is not in the account', async () => {
    const other = await api.createProject({}, { account: BASIC_ACCOUNT });
    const res = await put([{ type: 'project', id: 'prj_missing' }, { type: 'project', id: other.id }, { type: 'target-group', id: projectId }]);
    expect([res.status, res.body.object]).toEqual([400, 'bad_request_error']);
    expect(paramNames(res)).toEqual(['respondent_activity_exclusions[0].id', 'respondent_activity_exclusions[1].id', 'respondent_activity_exclusions[2].id']);
  });

  it.each([[{ type: 'campaign', id: 'x' }], [{ id: 'x' }], [{ type: 'project' }], [{ type: 'project', id: 'x', extra: 1 }], ['project']])('rejects malformed item %j', async (item) => {
    const res = await put([item]);
    expect(res.status).toBe(400);
  });
});

describe('Endpoints › Respondent activity exclusions', () => {
  it('applies the request-level duration to items without one; an item-level duration wins', async () => {
    const res = await put([{ type: 'project', id: projectId }, { type: 'target-group', id: tgId, duration: 'P10D' }], { duration: 'P2W' });
    expect(res.status).toBe(200);
    // The reference's answer carries no request-level duration: each item carries the duration in effect.
    expect(res.body).not.toHaveProperty('duration');
    expect(res.body.respondent_activity_exclusions.map((i: { duration: string }) => i.duration)).toEqual(['P2W', 'P10D']);
  });

  it('validates the request-level duration', async () => {
    const res = await put([], { duration: 'P400D' });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['duration']);
  });

  it('replaces the whole list on every PUT, and GET returns the current list', async () => {
    await put([{ type: 'project', id: projectId }, { type: 'target-group', id: tgId }]);
    await put([{ type: 'target-group', id: tgId, duration: 'P1D' }]);
    const got = await api.req('GET', path);
    expect(got.status).toBe(200);
    expect(got.body.respondent_activity_exclusions).toEqual([{ type: 'target-group', id: tgId, respondent_statuses: ['Complete'], duration: 'P1D' }]);
    await put([]);
    expect((await api.req('GET', path)).body.respondent_activity_exclusions).toEqual([]);
  });

  it('requires respondent_activity_exclusions in the PUT body', async () => {
    const res = await api.req('PUT', path, { body: { duration: 'P1D' } });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['respondent_activity_exclusions']);
  });

  it('returns the list on the target group get, and validates items inline on draft create and update', async () => {
    const tgs = `${P()}/projects/${projectId}/target-groups`;
    const created = await api.req('POST', tgs, { body: draftBody({ respondent_activity_exclusions: [{ type: 'project', id: projectId, duration: 'P3M' }] }) });
    expect(created.status).toBe(201);
    expect((await api.req('GET', `${tgs}/${created.body.id}`)).body.respondent_activity_exclusions).toEqual([{ type: 'project', id: projectId, respondent_statuses: ['Complete'], duration: 'P3M' }]);
    expect(storedDays(created.body.id)).toEqual([90]);
    const badCreate = await api.req('POST', tgs, { body: draftBody({ respondent_activity_exclusions: [{ type: 'project', id: projectId, duration: 'PT5M' }] }) });
    expect(badCreate.status).toBe(400);
    expect(paramNames(badCreate)).toEqual(['respondent_activity_exclusions[0].duration']);
    const badUpdate = await api.req('PUT', `${tgs}/${created.body.id}`, { body: draftBody({ respondent_activity_exclusions: [{ type: 'target-group', id: 'tg_missing' }] }) });
    expect([badUpdate.status, badUpdate.body.object]).toEqual([400, 'bad_request_error']);
    // The reference's create_target_group documents 400 for a bad body, no 422: an unknown reference on create too.
    const badReference = await api.req('POST', tgs, { body: draftBody({ respondent_activity_exclusions: [{ type: 'project', id: 'prj_missing' }, { type: 'target-group', id: 'tg_missing' }] }) });
    expect([badReference.status, badReference.body.object]).toEqual([400, 'bad_request_error']);
    expect(paramNames(badReference)).toEqual(['respondent_activity_exclusions[0].id', 'respondent_activity_exclusions[1].id']);
  });

  it('refuses inline non-Complete statuses on an account without the feature (403)', async () => {
    const project = await api.createProject({}, { account: BASIC_ACCOUNT });
    const res = await api.req('POST', `${P(BASIC_ACCOUNT)}/projects/${project.id}/target-groups`, {
      body: draftBody({ respondent_activity_exclusions: [{ type: 'project', id: project.id, respondent_statuses: ['FinancialTerm'] }] }, BASIC_ACCOUNT),
    });
    expect(res.status).toBe(403);
    expect(res.body.object).toBe('feature_not_enabled');
  });
});
