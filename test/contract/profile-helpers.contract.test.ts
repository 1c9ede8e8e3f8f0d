// Contract tests of the profiling helpers `studyflow plan` asks (api/wire/operations.ts
// PROFILE_HELPER_OPERATIONS): get_panel_distribution_draft and account_questions_translation. The client drives the
// real sandbox with the requests the planning core builds (plan/server-checks.ts distributionRequests,
// profileQuestionIds), and every exchange is checked against studyflow's zod wire schemas and, independently, against
// the reference's own JSON schemas (test/contract/operation-checks.ts). Answers of another shape (the sandbox's earlier
// ones) are wire_mismatch.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { PROFILE_HELPER_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import { profilingOf } from '../../plan/profiling';
import { distributionCheck, distributionRequests, profileQuestionIds, profilesCheck, readQuestions, type QuestionText } from '../../plan/server-checks';
import type { DesiredTargetGroup } from '../../plan/types';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testSandboxOptions } from '../helpers/test-profile';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { rejectionOf } from '../activities/helpers/mock-api';
import { createMockActivities, type MockActivities } from '../activities/helpers/mock-activities';
import { describeOperationChecks } from './operation-checks';
import { recordingClient, type RecordedExchange } from './recording-client';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const NOW = Date.parse('2026-12-01T00:00:00Z');
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let blobDir: string;
let activities: ReturnType<typeof createActivities>;

/** Profiles as a study file writes them: percentages with quotas, nominal goals, a profile without quotas. */
const GENDER = {
  object: 'regular', name: 'Gender', quotas_enabled: true,
  targets: [
    { text: 'Men', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal_percentage: 40 } },
    { text: 'Women', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal_percentage: 60 } },
  ],
};
const AGE = {
  object: 'regular', name: 'Age', quotas_enabled: true,
  targets: [
    { conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }], quota: { name: 'young', completes_goal_percentage: 50 } },
    { conditions: [{ object: 'range', question_id: 42, min: 35, max: 99 }], quota: { name: 'older', completes_goal_percentage: 50 } },
  ],
};
const BRAND = {
  object: 'regular', name: 'Brand', quotas_enabled: false,
  targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['Acme'] }] }],
};
const REGION_NOMINAL = {
  object: 'regular', name: 'Region', quotas_enabled: true,
  targets: [1, 2, 3, 4].map((option) => ({ conditions: [{ object: 'selection', question_id: 96, option: String(option) }], quota: { name: `r${option}`, completes_goal: 75 } })),
};

const desiredOf = (profiles: unknown[], fielding?: { start_at: string; end_at: string }): DesiredTargetGroup => {
  const profiling = profilingOf(profiles);
  return {
    key: 'us',
    draft: { locale: 'en_US', filling_goal: 300, collects_pii: false, ...(fielding ? { fielding_specification: fielding } : {}), ...(profiling ? { profiling } : {}) },
    profiles,
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: false, endFieldingAt: '2027-01-10T00:00:00Z' },
    timing: { jobPollInitialMs: 20, jobPollMaxMs: 50, jobTimeoutMs: 10_000, launchRetries: 1, watchIntervalMs: 60_000 },
  };
};

const results: Record<string, unknown> = {};

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  agent = new Agent({ keepAliveTimeout: 1000 });
  blobDir = await mkdtemp(join(tmpdir(), 'studyflow-contract-profile-helpers-'));
  activities = createActivities({
    api: recordingClient(createDemandApiClient({ config: sandboxApiConfig(sandbox), dispatcher: agent }), exchanges),
    blobs: createBlobStore({ dir: blobDir }),
    webhookSecrets: { save: async () => undefined, has: async () => false },
    listPageSize: 2,
  });
  const a = activities;

  // A percentage profiling: one request per profile with quotas (the Brand profile has none, so 2 requests), the
  // window the draft create would send (the study's end, no start).
  const percentage = desiredOf([GENDER, BRAND, AGE]);
  results.percentageRequests = distributionRequests(percentage, NOW);
  results.percentage = await Promise.all((results.percentageRequests as Record<string, unknown>[]).map(async (request) => (await a.supplierQuotaDistribution({ ctx, request })).profile));
  // A nominal profiling with the draft's own fielding window.
  const nominal = desiredOf([REGION_NOMINAL], { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' });
  results.nominalRequests = distributionRequests(nominal, NOW);
  results.nominal = await Promise.all((results.nominalRequests as Record<string, unknown>[]).map(async (request) => (await a.supplierQuotaDistribution({ ctx, request })).profile));
  results.percentageCheck = distributionCheck(percentage, { ok: true, value: results.percentage as Record<string, unknown>[] });
  results.nominalCheck = distributionCheck(nominal, { ok: true, value: results.nominal as Record<string, unknown>[] });

  // A profile the sandbox refuses (a question it does not know): the reference's 400, a non-retryable failure.
  const unknown = { ...(results.percentageRequests as Record<string, unknown>[])[0], profile: { object: 'regular', name: 'X', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'selection', question_id: 999_999, option: '1' }] }] } };
  results.refused = await rejectionOf(a.supplierQuotaDistribution({ ctx, request: unknown }));

  // The question texts of every question the profiles use, in a locale (pages of 2: the list is followed to its end).
  const ids = profileQuestionIds(desiredOf([GENDER, BRAND, AGE, REGION_NOMINAL]));
  results.ids = ids;
  results.questions = readQuestions((await a.getQuestionTexts({ ctx, locale: 'de_DE', questionIds: ids })).items);
  results.english = readQuestions((await a.getQuestionTexts({ ctx, locale: 'en_US', questionIds: ids })).items);
  results.none = (await a.getQuestionTexts({ ctx, locale: 'de_DE', questionIds: [96] })).items;
  results.profilesCheck = profilesCheck(percentage, { ok: true, value: { valid: true } }, { ok: true, value: results.questions as QuestionText[] });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
  if (blobDir) await rm(blobDir, { recursive: true, force: true });
});

describe('get_panel_distribution_draft', () => {
  it('one request per profile with quotas; the answers give each target a goal, adding up to the completes goal', () => {
    const requests = results.percentageRequests as Record<string, unknown>[];
    expect(requests.map((r) => (r.profile as { name: string }).name)).toEqual(['Gender', 'Age']);
    expect(requests[0]).toMatchObject({ locale: 'en_US', completes_goal: 300, profile_adjustment_type: 'percentage', start_at: '2026-12-01T00:00:00.000Z', end_at: '2027-01-10T00:00:00.000Z', collects_pii: false });
    const answered = results.percentage as { targets: { quota?: { completes_goal?: number } }[] }[];
    expect(answered.map((p) => p.targets.map((t) => t.quota?.completes_goal))).toEqual([[120, 180], [150, 150]]);
    expect(results.percentageCheck).toMatchObject({ outcome: 'pass', summary: '2 profiles with quotas: projected goals add up to 300 completes' });
    expect((results.percentageCheck as { details: string[] }).details).toEqual([
      'profile Gender: 300 of 300 completes projected', '  Men: 120 completes', '  Women: 180 completes',
      'profile Age: 300 of 300 completes projected', '  young: 150 completes', '  older: 150 completes',
    ]);
    expect(results.nominalRequests).toEqual([expect.objectContaining({ profile_adjustment_type: 'nominal', start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' })]);
    expect(results.nominalCheck).toMatchObject({ outcome: 'pass' });
  });

  it('a profile the service refuses is its 400 bad_request_error, a non-retryable failure', () => {
    expect(results.refused).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
  });
});

describe('account_questions_translation', () => {
  it('reads every page of the questions the profiles use, with their texts in the locale and English', () => {
    expect(results.ids).toEqual([42, 43, 96, 9001]);
    const questions = results.questions as QuestionText[];
    // Region (96) is asked in en_US only: de_DE lists three of the four.
    expect(questions.map((q) => q.questionId)).toEqual([42, 43, 9001]);
    expect(questions.find((q) => q.questionId === 43)).toEqual({
      questionId: 43, text: 'Welches Geschlecht haben Sie?', textTranslated: 'What is your gender?',
      options: [{ option: '1', text: 'Männlich', textTranslated: 'Male' }, { option: '2', text: 'Weiblich', textTranslated: 'Female' }, { option: '3', text: 'Divers', textTranslated: 'Other' }],
    });
    expect((results.english as QuestionText[]).map((q) => q.questionId)).toEqual([42, 43, 96, 9001]);
    expect(results.none).toEqual([]);
    const pages = exchanges.filter((e) => e.path.endsWith('/questions-translation'));
    expect(pages.map((e) => e.query.id)).toEqual(['42,43,96,9001', '42,43,96,9001', '42,43,96,9001', '42,43,96,9001', '96']);
    expect((results.profilesCheck as { details: string[] }).details[1]).toBe('  Men: 43 "Welches Geschlecht haben Sie?" [What is your gender?] = 1 "Männlich" [Male] — quota men 40%, 120 completes');
  });
});

describe('answers of another shape are wire_mismatch, never an empty result', () => {
  let m: MockActivities;
  afterEach(async () => {
    await m.agent.close();
  });
  const P = '/v1/demand/accounts/1001';

  it('the distribution\'s earlier answer ({filling_goal, suppliers}) and a profile without targets', async () => {
    m = createMockActivities();
    const request = (results.percentageRequests as Record<string, unknown>[])[0];
    m.on('POST', `${P}/supplier-quota-distribution/draft`, () => ({ status: 200, body: { filling_goal: 300, suppliers: [{ supplier_id: 1, completes_goal: 300 }] } }));
    m.on('POST', `${P}/supplier-quota-distribution/draft`, () => ({ status: 200, body: { object: 'regular', quotas_enabled: true, targets: [] } }));
    for (let i = 0; i < 2; i += 1) expect(await rejectionOf(m.activities.supplierQuotaDistribution({ ctx, request }))).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
  });

  it('the questions\' earlier items ({question_id, text, options}) and a page without its envelope', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/questions-translation?locale=en_US&id=43&page_size=2`, () => ({ status: 200, body: { total: 1, profiles: [{ question_id: 43, text: 'Gender?', options: [] }], has_more: false, next_cursor: null } }));
    m.on('GET', `${P}/questions-translation?locale=en_US&id=43&page_size=2`, () => ({ status: 200, body: { data: [] } }));
    for (let i = 0; i < 2; i += 1) expect(await rejectionOf(m.activities.getQuestionTexts({ ctx, locale: 'en_US', questionIds: [43] }))).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
  });
});

// The reference's RequestDraftQuotaV3 (the targets of the distribution's request and answer) has a nominal, a
// percentage and a no-quota branch without additionalProperties: a target with a quota and studyflow's quota `name`
// (which the reference's own example sends) matches its branch only.
describeOperationChecks(PROFILE_HELPER_OPERATIONS, () => exchanges);
