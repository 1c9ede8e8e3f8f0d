// The sandbox's reconciliations and reports against the published reference, in both dialects: a run drives every
// operation (successes and the refusals it documents), and each answer is checked strictly with the project's
// oracle (reference-openapi.ts: ajv from the yml, no field the reference does not declare): the operation's method
// and path are the reference's, its status is one the reference documents, a JSON answer fits its schema, a file
// comes with a media type the reference names. The requests the run sends with a JSON body fit the reference's.
// Then what the client (api/) reads from the sandbox agrees with the sandbox's records.
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemandApiClient, type ApiRequest, type ApiResponse, type DemandApiClient } from '../../api/http/demand-api-client';
import { apiCaller, type ApiCaller } from '../../api/operations/caller';
import {
  downloadReconciliationFile, eligibleTargetGroups, findSubmissionByName, getReconciliation, reconciliationReasonCodes, reconciliationTargetGroup, reconciliationTargetGroups,
  submitApprovedCompletes, submitReconciliations,
} from '../../api/operations/reconciliations';
import { awaitReport, downloadReport, eligibleRidsReport, generateReport, reportRequests, reportStatus, shareReport, type EligibleRid } from '../../api/operations/reports';
import { CLOSEOUT_OPERATIONS, wireOperationOf } from '../../api/wire/operations';
import { startSandbox, type RunningSandbox, type SandboxDialectName } from '../../sandbox/index';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { testProfile, testSandboxOptions } from '../helpers/test-profile';
import { P, SandboxTestClient, startTestSandbox, type RequestOptions } from '../sandbox/sandbox-test-client';
import type { RecordedExchange } from './recording-client';
import { answerProblems, referenceAnswerContentTypes, referenceAvailable, referenceOperation, referenceStatuses, requestProblems } from './reference-openapi';

const BASE = Date.parse('2026-12-10T00:00:00.000Z');
const A = '/demand/accounts/{account_id}';

/** The operations and their reference paths (the sandbox serves them under /v1). */
const OPERATIONS: Record<string, { method: string; path: string }> = {
  get_reconciliations_by_account_id: { method: 'GET', path: `${A}/reconciliations` },
  post_reconciliations: { method: 'POST', path: `${A}/reconciliations` },
  get_reconciliation_by_request_id: { method: 'GET', path: `${A}/reconciliations/{request_id}` },
  get_target_groups_by_request_id: { method: 'GET', path: `${A}/reconciliations/{request_id}/target-groups` },
  get_target_group_by_request_id_and_target_group_id: { method: 'GET', path: `${A}/reconciliations/{request_id}/target-groups/{target_group_id}` },
  get_recon_downloads: { method: 'GET', path: `${A}/reconciliations/{request_id}/downloads/{download_type}` },
  get_eligible_target_groups: { method: 'GET', path: `${A}/reconciliations/eligible-target-groups` },
  post_reconciliations_completes: { method: 'POST', path: `${A}/projects/{project_id}/reconciliations/completes` },
  request_reconciliation_reason_codes: { method: 'GET', path: `${A}/reconciliations/reason-codes` },
  generate_report: { method: 'POST', path: `${A}/reports/{report_type}` },
  report_status: { method: 'GET', path: `${A}/reports/{report_id}/status` },
  download_report_v2: { method: 'GET', path: `${A}/reports/{report_id}/download` },
  report_requests: { method: 'GET', path: `${A}/reports` },
  share_report: { method: 'GET', path: `${A}/reports/{report_id}/share` },
};

/**
 * The reference's own flaws, which no answer can meet: generate_report's `report_id` is typed `format: uuid` and
 * given the ULID pattern at once (its other report ids, report_status and the list's, are ULIDs, as the sandbox's).
 */
const REFERENCE_FLAWS: Record<string, RegExp[]> = {
  generate_report: [/^\/report_id must match format "uuid"$/],
};

/** Every status each operation must be seen answering in the run. */
const EXPECTED_STATUSES: Record<string, number[]> = {
  get_reconciliations_by_account_id: [200, 400],
  post_reconciliations: [202, 400],
  get_reconciliation_by_request_id: [200, 404],
  get_target_groups_by_request_id: [200, 404],
  get_target_group_by_request_id_and_target_group_id: [200, 404],
  get_recon_downloads: [200, 400, 404],
  get_eligible_target_groups: [200, 400],
  post_reconciliations_completes: [202, 400],
  request_reconciliation_reason_codes: [200],
  generate_report: [202, 400],
  report_status: [200, 404],
  download_report_v2: [200, 400, 404],
  report_requests: [200, 400],
  share_report: [200, 400, 404],
};

interface Exchange {
  operation: string;
  path: string;
  request: unknown;
  status: number;
  body: unknown;
  text: string;
  contentType: string;
}

describe.each(['spec', 'cint'] as const)('reconciliations and reports in the %s dialect', (dialect: SandboxDialectName) => {
  let sb: RunningSandbox;
  let api: SandboxTestClient;
  let jump = 0;
  const exchanges: Exchange[] = [];

  async function call(operation: string, path: string, opts: RequestOptions = {}) {
    const res = await api.req(OPERATIONS[operation].method, `/v1${path}`, opts);
    exchanges.push({ operation, path, request: opts.body, status: res.status, body: res.body, text: res.text, contentType: res.headers.get('content-type') ?? '' });
    return res;
  }
  const csv = (text: string): RequestOptions => ({ raw: text, contentType: 'text/csv' });
  async function settle(check: () => Promise<boolean>) {
    for (let i = 0; i < 300 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  beforeAll(async () => {
    const started = Date.now();
    ({ sb, api } = await startTestSandbox({ dialect, clock: () => BASE + (Date.now() - started) + jump, faults: { job_duration_ms: 2_000 } }));
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1, seed: `contract-${dialect}` });
    const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 10 });
    const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    jump += 3_000;
    await api.waitForJob(launch.headers.get('location')!);
    await api.admin('POST', '/fielding/advance', { minutes: 4320 });
    const completes = (await api.admin('GET', `/fielding/target-groups/${made.tg.id}/rids?status=Complete`)).body.data as Array<{ rid: string }>;
    const acct = P().replace('/v1', '');
    const unknownId = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';

    await call('request_reconciliation_reason_codes', `${acct}/reconciliations/reason-codes`);
    const submitted = await call('post_reconciliations', `${acct}/reconciliations?name=contract.csv`, csv(`${completes[0].rid},21\nunknown-rid,22\n`));
    const id = submitted.body.request_id as string;
    await call('post_reconciliations', `${acct}/reconciliations?name=phased.csv`, csv(`${completes[1].rid},29\n`));
    // While processing, then complete.
    await call('get_reconciliation_by_request_id', `${acct}/reconciliations/${id}`);
    await call('get_target_groups_by_request_id', `${acct}/reconciliations/${id}/target-groups`);
    await call('get_recon_downloads', `${acct}/reconciliations/${id}/downloads/expired-rids`);
    await call('get_reconciliations_by_account_id', `${acct}/reconciliations`);
    jump += 3_000;
    await settle(async () => (await api.req('GET', `${P()}/reconciliations/${id}`)).body.status === 'complete');
    await call('get_reconciliation_by_request_id', `${acct}/reconciliations/${id}`);
    await call('get_reconciliation_by_request_id', `${acct}/reconciliations/${unknownId}`);
    await call('get_target_groups_by_request_id', `${acct}/reconciliations/${id}/target-groups`);
    await call('get_target_groups_by_request_id', `${acct}/reconciliations/${unknownId}/target-groups`);
    await call('get_target_group_by_request_id_and_target_group_id', `${acct}/reconciliations/${id}/target-groups/${made.tg.id}`);
    await call('get_target_group_by_request_id_and_target_group_id', `${acct}/reconciliations/${id}/target-groups/${unknownId}`);
    for (const type of ['submitted-rids', 'expired-rids', 'invalid-rids', 'remaining-project-completes', 'all-rids']) {
      await call('get_recon_downloads', `${acct}/reconciliations/${id}/downloads/${type}`);
    }
    await call('get_reconciliations_by_account_id', `${acct}/reconciliations?page_size=1`);
    await call('get_reconciliations_by_account_id', `${acct}/reconciliations?status=finished`);
    await call('get_eligible_target_groups', `${acct}/reconciliations/eligible-target-groups?due_month=next_month`);
    await call('get_eligible_target_groups', `${acct}/reconciliations/eligible-target-groups`);
    await call('get_eligible_target_groups', `${acct}/reconciliations/eligible-target-groups?due_month=later`);
    const kept = await call('post_reconciliations_completes', `${acct}/projects/${made.project.id}/reconciliations/completes?name=approved.csv`, csv(`${completes[1].rid}\n`));
    await call('post_reconciliations_completes', `${acct}/projects/${made.project.id}/reconciliations/completes`, csv(`${completes[1].rid}\n`));
    jump += 3_000;
    await settle(async () => (await api.req('GET', `${P()}/reconciliations/${kept.body.request_id}`)).body.status === 'complete');
    await call('get_recon_downloads', `${acct}/reconciliations/${kept.body.request_id}/downloads/remaining-project-completes`);
    await call('get_reconciliations_by_account_id', `${acct}/reconciliations`);

    const request = { filter: 'project', filter_ids: [made.project.id], start_date: '2026-12-01', end_date: '2026-12-31', report_options: { include_respondent_answers: false }, email_recipients: [made.tg.project_manager_id] };
    const report = await call('generate_report', `${acct}/reports/reconciliation-eligible-rids`, { body: request });
    const reportId = report.body.report_id as string;
    await call('generate_report', `${acct}/reports/completes`, { body: {} });
    await call('generate_report', `${acct}/reports/respondent-analysis`, { body: { filter: 'target_group', filter_ids: [made.tg.id] } });
    await call('generate_report', `${acct}/reports/reconciliations-status`, { body: { filter: 'project', filter_ids: [made.project.id] } });
    await call('generate_report', `${acct}/reports/respondent-analysis`, { body: {} });
    await call('report_status', `${acct}/reports/${reportId}/status`);
    await call('download_report_v2', `${acct}/reports/${reportId}/download`);
    await call('share_report', `${acct}/reports/${reportId}/share?report_type=reconciliation-eligible-rids`);
    await call('report_requests', `${acct}/reports`);
    jump += 3_000;
    await settle(async () => (await api.req('GET', `${P()}/reports/${reportId}/status`)).body.status === 'completed');
    await call('report_status', `${acct}/reports/${reportId}/status`);
    await call('report_status', `${acct}/reports/${unknownId}/status`);
    await call('download_report_v2', `${acct}/reports/${reportId}/download`);
    await call('download_report_v2', `${acct}/reports/${unknownId}/download`);
    await call('share_report', `${acct}/reports/${reportId}/share?report_type=reconciliation-eligible-rids`);
    await call('share_report', `${acct}/reports/${reportId}/share`);
    await call('share_report', `${acct}/reports/${unknownId}/share?report_type=completes`);
    await call('report_requests', `${acct}/reports`);
    await call('report_requests', `${acct}/reports?level=project&Status=completed&report_type=reconciliation-eligible-rids&page_size=5`);
    await call('report_requests', `${acct}/reports?level=region`);
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
  });

  describe.each(Object.keys(OPERATIONS))('%s', (operation) => {
    const seen = () => exchanges.filter((e) => e.operation === operation);

    it('is exercised with the statuses the run expects, on the reference\'s method and path', () => {
      expect([...new Set(seen().map((e) => e.status))].sort()).toEqual([...EXPECTED_STATUSES[operation]].sort());
      const template = new RegExp(`^${OPERATIONS[operation].path.replace(/\{[a-z_]+\}/g, '[^/?]+')}(\\?.*)?$`);
      for (const e of seen()) expect(e.path).toMatch(template);
      if (referenceAvailable) expect(referenceOperation(operation)).toEqual(OPERATIONS[operation]);
    });

    it.skipIf(!referenceAvailable)('every answer fits the reference strictly: a documented status, its JSON schema or its file type; JSON requests fit too', () => {
      const flaws = REFERENCE_FLAWS[operation] ?? [];
      for (const e of seen()) {
        expect(referenceStatuses(operation), `${operation} ${e.path}`).toContain(String(e.status));
        const types = referenceAnswerContentTypes(operation, e.status);
        if (types.includes('application/json')) {
          expect(e.contentType, `${operation} ${e.status}`).toMatch(/^application\/json/);
          const problems = answerProblems(operation, e.status, e.body, dialect).filter((p) => !flaws.some((f) => f.test(p)));
          expect(problems, `${operation} ${e.status} ${e.text.slice(0, 200)}`).toEqual([]);
        } else {
          expect(types, `${operation} ${e.status}`).toContain(e.contentType.split(';')[0]);
          expect(e.body, `${operation} ${e.status} answers a file, not JSON`).toBeUndefined();
        }
        if (e.request !== undefined) expect(requestProblems(operation, e.request), `${operation} request`).toEqual([]);
      }
    });
  });

  it.skipIf(!referenceAvailable)('the listed flaw of the reference still shows (else it is closed: remove it)', () => {
    const generated = exchanges.find((e) => e.operation === 'generate_report' && e.status === 202)!;
    expect(answerProblems('generate_report', 202, generated.body, dialect)).toEqual(['/report_id must match format "uuid"']);
  });
});

/**
 * What the client (api/operations/reconciliations.ts and reports.ts) reads from the sandbox agrees with the sandbox's
 * own records, in the run's profile (STUDYFLOW_TEST_PROFILE). The client's operations are checked exchange by exchange
 * (operation-checks.ts) in reconciliations-client.contract.test.ts; the run's exchanges here are checked too.
 */
describe('the client\'s close-out operations against the sandbox', () => {
  const exchanges: RecordedExchange[] = [];
  let sb: RunningSandbox;
  let agent: Agent;
  let caller: ApiCaller;
  let api: SandboxTestClient;
  const seen: { tgId: string; projectId: string; completes: string[]; eligible: Map<string, EligibleRid>; exchangeNow?: string; simulatedNow: number; reasonCodes: number; downloaded: string } = {
    tgId: '', projectId: '', completes: [], eligible: new Map(), simulatedNow: 0, reasonCodes: 0, downloaded: '',
  };

  beforeAll(async () => {
    const started = Date.now();
    sb = await startSandbox({ quiet: true, ...testSandboxOptions(), clock: () => BASE + (Date.now() - started), faults: { job_duration_ms: 20 } });
    api = new SandboxTestClient(sb);
    agent = new Agent({ keepAliveTimeout: 1000 });
    const inner = createDemandApiClient({ config: sandboxApiConfig(sb), dispatcher: agent });
    const recording: DemandApiClient = {
      config: inner.config,
      get tokenRequestCount() {
        return inner.tokenRequestCount;
      },
      async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
        const res = await inner.request<T>(req);
        exchanges.push({ method: req.method, path: req.path, query: { ...req.query }, idempotencyKey: req.idempotencyKey, ifMatch: req.ifMatch, json: req.json, status: res.status, body: req.streamAnswer ? undefined : res.body, headers: res.headers });
        return res;
      },
    };
    caller = apiCaller(recording, { accountId: '1001', apiVersion: '2025-12-18' });
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1, seed: 'client-contract' });
    const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 10 });
    const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    await api.waitForJob(launch.headers.get('location')!);
    await api.admin('POST', '/fielding/advance', { minutes: 4320 });
    seen.tgId = made.tg.id;
    seen.projectId = made.project.id;
    seen.completes = ((await api.admin('GET', `/fielding/target-groups/${made.tg.id}/rids?status=Complete`)).body.data as Array<{ rid: string }>).map((r) => r.rid);
    const fast = { intervalMs: 10, maxWaitMs: 10_000 };

    seen.reasonCodes = (await reconciliationReasonCodes(caller)).length;
    await eligibleTargetGroups(caller, { dueMonth: 'next_month', pageSize: 5 });
    const eligible = await eligibleRidsReport(caller, { projectId: made.project.id, ...fast });
    seen.eligible = eligible.rids;
    seen.exchangeNow = eligible.exchangeNow;
    seen.simulatedNow = Date.parse((await api.admin('GET', '/fielding/settings')).body.simulated_now);
    const requestId = await submitReconciliations(caller, { name: 'client-contract.csv', idempotencyKey: randomUUID(), file: { lines: () => [`${seen.completes[0]},21`] } });
    await findSubmissionByName(caller, { name: 'client-contract.csv' });
    for (let i = 0; i < 300 && (await getReconciliation(caller, { requestId })).status !== 'complete'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await reconciliationTargetGroups(caller, { requestId });
    await reconciliationTargetGroup(caller, { requestId, targetGroupId: made.tg.id });
    const file = await downloadReconciliationFile(caller, { requestId, type: 'submitted-rids' });
    for await (const chunk of file) seen.downloaded += String(chunk);
    await submitApprovedCompletes(caller, { projectId: made.project.id, name: 'client-approved.csv', idempotencyKey: randomUUID(), file: { lines: () => [seen.completes[1]] } });
    const job = await generateReport(caller, { type: 'respondent-analysis', filter: 'project', ids: [made.project.id] });
    await reportStatus(caller, { reportId: job.reportId });
    await awaitReport(caller, { reportId: job.reportId, ...fast });
    const report = await downloadReport(caller, { reportId: job.reportId });
    report.body.destroy();
    await reportRequests(caller, { type: 'respondent-analysis' });
    await shareReport(caller, { reportId: job.reportId, type: 'respondent-analysis' });
  }, 120_000);
  afterAll(async () => {
    await agent?.close();
    await sb?.close();
  });

  it.skipIf(!referenceAvailable)('every exchange of the run is the reference\'s: a documented status, a JSON answer fitting its schema (a file is streamed, unrecorded)', () => {
    expect(exchanges.length).toBeGreaterThan(10);
    for (const e of exchanges) {
      const operation = wireOperationOf(e.method, e.path.split('?')[0], testProfile());
      expect(operation && operation in CLOSEOUT_OPERATIONS, `${e.method} ${e.path}`).toBe(true);
      expect(referenceStatuses(operation!)).toContain(String(e.status));
      if (e.body === undefined) continue;
      const problems = answerProblems(operation!, e.status, e.body).filter((p) => !(REFERENCE_FLAWS[operation!] ?? []).some((f) => f.test(p)));
      expect(problems, `${operation} ${e.status}`).toEqual([]);
    }
  });

  it('what the client reads agrees with the sandbox: reason codes, the eligible RIDs with their target group and completion, the exchange\'s clock, the submitted file', async () => {
    expect(seen.reasonCodes).toBeGreaterThan(1);
    expect([...seen.eligible.keys()].sort()).toEqual([...seen.completes].sort());
    const rids = (await api.admin('GET', `/fielding/target-groups/${seen.tgId}/rids?status=Complete`)).body.data as Array<{ rid: string; completed_at: string }>;
    for (const rid of rids.filter((r) => seen.eligible.has(r.rid))) expect(seen.eligible.get(rid.rid)).toEqual({ targetGroupId: seen.tgId, completedAt: rid.completed_at });
    // The download's Date is the simulated clock (December 2026), by which the windows are judged.
    expect(Math.abs(Date.parse(seen.exchangeNow!) - seen.simulatedNow)).toBeLessThan(5_000);
    expect(seen.downloaded).toBe(`${seen.completes[0]},21\n`);
  });
});
