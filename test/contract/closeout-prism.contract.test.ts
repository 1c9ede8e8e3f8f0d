// The client's close-out operations (api/operations/reconciliations.ts, reports.ts) against a validator nobody here
// wrote: Stoplight Prism mocking the published reference (normalised copy, prism-reference.ts) in static mode with
// request validation on (`--errors`), under the `cint` profile. Prism checks what the other contract tests cannot: the
// text/csv bodies and their Content-Type (ReconPostContentType), the required `name` and `report_type` queries, the
// Idempotency-Key header, and the path parameters' patterns. Every request must be accepted; every answer that is
// valid under the document must be read by the operation (its zod schema), and a bad request must be refused (so
// validation is really on). Needs the reference (skipped, visibly, without it).
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiConfig } from '../../api/http/api-config';
import { createDemandApiClient, type DemandApiClient } from '../../api/http/demand-api-client';
import { apiCaller, type ApiCaller } from '../../api/operations/caller';
import {
  downloadReconciliationFile,
  eligibleTargetGroups,
  findSubmissionByName,
  getReconciliation,
  reconciliationReasonCodes,
  reconciliationTargetGroup,
  reconciliationTargetGroups,
  submitApprovedCompletes,
  submitReconciliations,
} from '../../api/operations/reconciliations';
import { downloadReport, generateReport, reportRequests, reportStatus, shareReport } from '../../api/operations/reports';
import { CLOSEOUT_OPERATIONS } from '../../api/wire/operations';
import { PRISM_CREDENTIALS, startPrismMock, type PrismMock } from './prism-mock';
import { documentOperationMatcher, writeNormalisedReference } from './prism-reference';
import { answerProblems, REFERENCE_PATH, referenceAvailable } from './reference-openapi';

const REQUEST = '01BX5DZKBKACTAV9WEVGEMMVS1';
const TG = '01BTGNYV6HRNK8K8VKZASZCFP1';
const PROJECT = '01BTGNYV6HRNK8K8VKZASZCFP0';
const REPORT = '01HY3NF37B6J2ABPA3H49C92YZ';
const RID = '0f1ce179-a917-49ff-9d50-b05fc91f7bd4';

let mock: PrismMock;
let agent: Agent;
let client: DemandApiClient;
let caller: ApiCaller;
let operationOf: ReturnType<typeof documentOperationMatcher>;
/** Each call the run made: the operation it meant, and how it ended. */
const outcomes: Array<{ operation: string; error?: unknown }> = [];
/** Prism's exchanges of the run (the refusal test's come after). */
let runExchanges = 0;
/**
 * The answers a static mock cannot give right, each a flaw of the reference or of a static mock, not the client's:
 * generate_report's report_id is `format: uuid` with a ULID pattern (no value meets both, so Prism's answer breaks the
 * document); a list answer built from the schema repeats its cursor's example on every page, which the client refuses
 * (a cursor that repeats is a wire_mismatch, never an endless walk).
 */
const REPORT_ID_FLAW = /report_id/;
const REPEATED_CURSOR = /the list says there is more but gives no new cursor/;

async function call(operation: string, run: () => Promise<unknown>): Promise<void> {
  try {
    const value = await run();
    if (value && typeof value === 'object' && 'destroy' in value && typeof value.destroy === 'function') (value as { destroy(): void }).destroy();
    outcomes.push({ operation });
  } catch (error) {
    outcomes.push({ operation, error });
  }
}

describe.skipIf(!referenceAvailable)('close-out operations against Prism (the reference, static, validating)', () => {
  beforeAll(async () => {
    const reference = await writeNormalisedReference(REFERENCE_PATH, {
      exampleProblems: (id, status, example) => answerProblems(id, status, example, 'cint').filter((p) => !p.includes('must match format "ulid"')),
    });
    operationOf = documentOperationMatcher(reference.document);
    mock = await startPrismMock({ documentFile: reference.file, mode: 'static' });
    agent = new Agent({ pipelining: 0 });
    client = createDemandApiClient({
      config: createApiConfig({ baseUrl: mock.baseUrl, authUrl: mock.authUrl, audience: PRISM_CREDENTIALS.audience, clientId: PRISM_CREDENTIALS.clientId, clientSecret: PRISM_CREDENTIALS.clientSecret, profile: 'cint' }),
      dispatcher: agent,
    });
    caller = apiCaller(client, { accountId: '101', apiVersion: '2025-12-18' });

    await call('request_reconciliation_reason_codes', () => reconciliationReasonCodes(caller));
    await call('get_eligible_target_groups', () => eligibleTargetGroups(caller, { dueMonth: 'next_month' }));
    await call('get_reconciliations_by_account_id', () => findSubmissionByName(caller, { name: 'study-1-abc-1' }));
    await call('post_reconciliations', () => submitReconciliations(caller, { name: 'study-1-abc-1', idempotencyKey: randomUUID(), file: { lines: [`${RID},11`] } }));
    await call('post_reconciliations_completes', () => submitApprovedCompletes(caller, { projectId: PROJECT, name: 'keep.csv', idempotencyKey: randomUUID(), file: { lines: [RID] } }));
    await call('get_reconciliation_by_request_id', () => getReconciliation(caller, { requestId: REQUEST }));
    await call('get_target_groups_by_request_id', () => reconciliationTargetGroups(caller, { requestId: REQUEST }));
    await call('get_target_group_by_request_id_and_target_group_id', () => reconciliationTargetGroup(caller, { requestId: REQUEST, targetGroupId: TG }));
    await call('get_recon_downloads', () => downloadReconciliationFile(caller, { requestId: REQUEST, type: 'expired-rids' }));
    await call('generate_report', () => generateReport(caller, { type: 'reconciliation-eligible-rids', filter: 'project', ids: [PROJECT], startDate: '2026-06-01', endDate: '2026-11-27' }));
    await call('report_status', () => reportStatus(caller, { reportId: REPORT }));
    await call('download_report_v2', async () => (await downloadReport(caller, { reportId: REPORT })).body);
    await call('report_requests', () => reportRequests(caller, { type: 'completes', level: 'project', status: 'completed' }));
    await call('share_report', () => shareReport(caller, { reportId: REPORT, type: 'completes' }));
    runExchanges = mock.exchanges.length;
  }, 180_000);

  afterAll(async () => {
    await agent?.close();
    await mock?.close();
  });

  it('validation is on: a reconciliation file sent as JSON, and one without its name, are refused', async () => {
    const path = `/v1/demand/accounts/101/reconciliations`;
    const asJson = await client.request({ method: 'POST', path, apiVersion: '2025-12-18', query: { name: 'f.csv' }, json: { rows: [RID] }, idempotencyKey: randomUUID(), acceptStatuses: [400, 415, 422] });
    expect(asJson.status).toBeGreaterThanOrEqual(400);
    expect(mock.exchanges.at(-1)!.refusal, 'a JSON body for text/csv').toBeDefined();
  });

  it.each(Object.keys(CLOSEOUT_OPERATIONS))('%s: every request accepted under the path operations.ts gives it; an answer valid under the document is read', (id) => {
    const op = CLOSEOUT_OPERATIONS[id]!;
    const seen = mock.exchanges.slice(0, runExchanges).filter((e) => operationOf(e.method, e.path)?.operationId === id);
    expect(seen.length, `${id} reached Prism`).toBeGreaterThan(0);
    for (const e of seen) {
      expect(e.refusal, `${id} refused: ${JSON.stringify(e.refusal)}`).toBeUndefined();
      expect(op.path).toBe(operationOf(e.method, e.path)!.template.replace(/^\/v1/, ''));
      if (e.answerViolations) {
        expect(id, `Prism's own answer broke the document: ${e.answerViolations.join('; ')}`).toBe('generate_report');
        expect(e.answerViolations.every((v) => REPORT_ID_FLAW.test(v)), e.answerViolations.join('; ')).toBe(true);
        continue;
      }
      expect(Object.keys(op.answers).map(Number), `${id} status`).toContain(e.status);
      const schema = op.answers[e.status];
      if (schema === null) {
        expect(e.answerHeaders['content-type'], `${id} a file`).toMatch(/^text\/csv/);
        continue;
      }
      if (answerProblems(id, e.status, e.answer, 'cint').length === 0) expect(schema!.safeParse(e.answer).error?.issues ?? [], `${id} answer valid under the document`).toEqual([]);
    }
    const outcome = outcomes.find((o) => o.operation === id)!;
    if (outcome.error !== undefined && id !== 'generate_report') {
      expect({ type: (outcome.error as { type?: string }).type, message: String(outcome.error) }, `${id}'s call failed`).toMatchObject({ type: 'wire_mismatch', message: expect.stringMatching(REPEATED_CURSOR) });
    }
  });
});
