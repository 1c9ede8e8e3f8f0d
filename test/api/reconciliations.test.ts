// The close-out's reconciliation operations (api/operations/reconciliations.ts) against a local API on 127.0.0.1:
// reason codes, the eligible target groups and the account's submissions across pages, a file submitted streamed
// (chunked text/csv, the caller's Idempotency-Key, the file name) and its retries, a submission's status and counts
// as the planning core reads them, its target groups, and its downloads streamed; failures are the client's named ones.
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  downloadReconciliationFile,
  eligibleTargetGroups,
  findSubmissionByName,
  getReconciliation,
  observeSubmission,
  reconciliationReasonCodes,
  reconciliationTargetGroup,
  reconciliationTargetGroups,
  reconciliationsNamed,
  submissionOf,
  submitApprovedCompletes,
  submitReconciliations,
  type SubmissionObservation,
} from '../../api/operations/reconciliations';
import { apiCaller } from '../../api/operations/caller';
import { REQUEST_BODY_SPENT, csvRecords } from '../../api/operations/csv-stream';
import type { ObservedSubmission } from '../../plan/closeout-types';
import { rejectionOf } from '../activities/helpers/mock-api';
import { apiError, P, startLocalApi, type LocalApi } from './helpers/local-api';

const REQ = '01JREC0NC1L1AT10N000000001';
const TG1 = '01JTARGETGR0VP000000000001';
const TG2 = '01JTARGETGR0VP000000000002';
const PROJECT = '01JPR0JECT0000000000000001';
const KEY = '5b0d4a3e-2f7c-4c1d-9a8e-3c2b1a0f9e8d';
const rid = (i: number) => `0f1ce179-a917-49ff-9d50-${String(i).padStart(12, '0')}`;

let api: LocalApi;
beforeEach(async () => {
  api = await startLocalApi();
});
afterEach(async () => {
  expect(api.pending()).toEqual([]);
  await api.close();
});

describe('request_reconciliation_reason_codes', () => {
  it('gives every code as a string with its description (the name where the answer gives none) and whether it is allowed', async () => {
    api.on('GET', `${P}/reconciliations/reason-codes`, () => ({
      status: 200,
      json: {
        reconciliation_reasons: [
          { code: '11', name: 'Adjusted Complete', description: 'Respondent was adjusted to complete', allowed: true },
          { code: '932', name: 'Speeder', allowed: false },
        ],
      },
    }));
    expect(await reconciliationReasonCodes(api.caller())).toEqual([
      { code: '11', description: 'Respondent was adjusted to complete', allowed: true },
      { code: '932', description: 'Speeder', allowed: false },
    ]);
    expect(api.calls[0]!.headers['svc-api-version']).toBe('2025-12-18');
  });

  it('a code sent as a number is not the reference\'s shape: wire_mismatch naming the operation, never a list without it', async () => {
    api.on('GET', `${P}/reconciliations/reason-codes`, () => ({ status: 200, json: { reconciliation_reasons: [{ code: 11, allowed: true }] } }));
    const f = await rejectionOf(reconciliationReasonCodes(api.caller()));
    expect(f).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(f.details[0]).toMatchObject({ operation: 'request_reconciliation_reason_codes', problems: ['reconciliation_reasons.0.code: Invalid input: expected string, received number'] });
  });
});

describe('get_eligible_target_groups', () => {
  it('walks has_more/next_cursor to the end with the due month and filters as query', async () => {
    const item = (id: string) => ({ target_group_id: id, project_id: PROJECT, name: `TG ${id}`, eligible_completes: '12', monetary_amount: { value: '30.00', currency_code: 'USD' } });
    api.on('GET', `${P}/reconciliations/eligible-target-groups`, (c) => {
      expect(c.query.get('start_after')).toBeNull();
      return { status: 200, json: { target_groups: [item(TG1)], has_more: true, next_cursor: 'c1', page_size: 1 } };
    });
    api.on('GET', `${P}/reconciliations/eligible-target-groups`, (c) => {
      expect(c.query.get('start_after')).toBe('c1');
      return { status: 200, json: { target_groups: [item(TG2)], has_more: false } };
    });
    const out = await eligibleTargetGroups(api.caller(), { dueMonth: 'next_month', projectManagerId: 'pm-1', pageSize: 1 });
    expect(out.map((t) => t.target_group_id)).toEqual([TG1, TG2]);
    expect(Object.fromEntries(api.calls[0]!.query)).toEqual({ due_month: 'next_month', project_manager_id: 'pm-1', page_size: '1' });
  });

  it('a list that says there is more and gives no cursor fails as wire_mismatch', async () => {
    api.on('GET', `${P}/reconciliations/eligible-target-groups`, () => ({ status: 200, json: { target_groups: [], has_more: true } }));
    expect(await rejectionOf(eligibleTargetGroups(api.caller()))).toMatchObject({ type: 'wire_mismatch' });
  });
});

describe('get_reconciliations_by_account_id: findSubmissionByName', () => {
  const listItem = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, name, status: 'complete', submission_type: 'rejected_rids', ...extra });

  it('asks by name across next_cursor pages, keeps the exact name only, and reads it as the planning core does', async () => {
    api.on('GET', `${P}/reconciliations`, (c) => {
      expect(c.query.get('name')).toBe('s1-abc-1');
      return { status: 200, json: { reconciliation_requests: [listItem('01JREC0NC1L1AT10N000000009', 's1-abc-10')], next_cursor: 'n1', page_size: 1 } };
    });
    api.on('GET', `${P}/reconciliations`, (c) => {
      expect(c.query.get('start_after')).toBe('n1');
      return {
        status: 200,
        json: { reconciliation_requests: [listItem(REQ, 's1-abc-1', { result_counts: { submitted: 10, expired: 1, invalid: 2, total_reversed: 7, positive_reversed: 0, negative_reversed: 7 } })], next_cursor: null },
      };
    });
    const found = await findSubmissionByName(api.caller(), { name: 's1-abc-1', pageSize: 1 });
    expect(found).toEqual({ name: 's1-abc-1', requestId: REQ, status: 'complete', done: true, counts: { reversed: 7, expired: 1, invalid: 2 } });
    // The shape the planning core takes (plan/closeout-types.ts), without a cast.
    const observed: ObservedSubmission | undefined = found;
    expect(observed?.done).toBe(true);
  });

  it('none of that name: undefined; two of it: ambiguous_natural_key, final', async () => {
    api.on('GET', `${P}/reconciliations`, () => ({ status: 200, json: { reconciliation_requests: [] } }));
    expect(await findSubmissionByName(api.caller(), { name: 'x.csv' })).toBeUndefined();
    api.on('GET', `${P}/reconciliations`, () => ({ status: 200, json: { reconciliation_requests: [listItem(REQ, 'x.csv'), listItem(REQ.replace('1', '2'), 'x.csv', { status: 'processing' })] } }));
    expect(await rejectionOf(findSubmissionByName(api.caller(), { name: 'x.csv' }))).toMatchObject({ type: 'ambiguous_natural_key', nonRetryable: true });
  });

  it('by prefix (every submission of a study): the list is read without a name filter and matched here', async () => {
    api.on('GET', `${P}/reconciliations`, (c) => {
      expect(c.query.has('name')).toBe(false);
      return { status: 200, json: { reconciliation_requests: [listItem(REQ, 's1-a-1'), listItem('01JREC0NC1L1AT10N000000002', 's2-a-1'), listItem('01JREC0NC1L1AT10N000000003', 's1-b-1')] } };
    });
    expect((await reconciliationsNamed(api.caller(), { name: 's1-', prefix: true })).map((r) => r.name)).toEqual(['s1-a-1', 's1-b-1']);
  });

  it('a name the reference would refuse is not asked', async () => {
    expect(await rejectionOf(findSubmissionByName(api.caller(), { name: 'x'.repeat(256) }))).toMatchObject({ type: 'invalid_activity_input' });
    expect(api.calls).toEqual([]);
  });
});

describe('post_reconciliations: a file streamed as text/csv', () => {
  it('sends the lines chunked (no Content-Length) while they are still being produced, with the name and the caller\'s Idempotency-Key; 202 -> request id', async () => {
    let received = 0;
    let firstBytes!: () => void;
    const serverHasBytes = new Promise<void>((resolve) => (firstBytes = resolve));
    api.onBodyChunk = (n) => {
      received += n;
      if (received > 0) firstBytes();
    };
    const rows = 5000;
    // The producer waits, mid-file, until the server holds the first bytes: a client that gathered the file
    // before sending would wait for ever (and the test would time out).
    async function* lines() {
      for (let i = 0; i < rows; i += 1) {
        if (i === 4000) await serverHasBytes;
        yield `${rid(i)},21`;
      }
    }
    api.on('POST', `${P}/reconciliations`, () => ({ status: 202, json: { name: 'study-1-abc-1', request_id: REQ } }));

    const requestId = await submitReconciliations(api.caller(), { name: 'study-1-abc-1', idempotencyKey: KEY, file: { lines: lines() } });

    expect(requestId).toBe(REQ);
    const call = api.calls[0]!;
    expect(call.headers['content-type']).toBe('text/csv');
    expect(call.headers['transfer-encoding']).toBe('chunked');
    expect(call.headers['content-length']).toBeUndefined();
    expect(call.headers['idempotency-key']).toBe(KEY);
    expect(call.query.get('name')).toBe('study-1-abc-1');
    const sent = call.body.toString('utf8').split('\n');
    expect(sent.length).toBe(rows + 1);
    expect(sent[0]).toBe(`${rid(0)},21`);
    expect(sent[rows]).toBe('');
  });

  it('a Readable of the stored file is sent as it is', async () => {
    const stored = `${rid(1)},21\r\n${rid(2)},22\n${rid(3)},23`;
    api.on('POST', `${P}/reconciliations`, () => ({ status: 202, json: { request_id: REQ } }));
    await submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { bytes: Readable.from([Buffer.from(stored.slice(0, 10)), Buffer.from(stored.slice(10))]) } });
    expect(api.calls[0]!.body.toString('utf8')).toBe(stored);
  });

  it('retried with the same Idempotency-Key after a 503 (retryable server_error), the same bytes go again', async () => {
    api.on('POST', `${P}/reconciliations`, () => ({ status: 503, json: apiError('unexpected_internal_error') }));
    api.on('POST', `${P}/reconciliations`, () => ({ status: 202, json: { request_id: REQ } }));
    const input = { name: 'f.csv', idempotencyKey: KEY, file: { lines: () => [`${rid(1)},21`, `${rid(2)},21`] } };
    expect(await rejectionOf(submitReconciliations(api.caller(), input))).toMatchObject({ type: 'server_error', nonRetryable: false });
    expect(await submitReconciliations(api.caller(), input)).toBe(REQ);
    expect(api.calls.map((c) => c.headers['idempotency-key'])).toEqual([KEY, KEY]);
    expect(api.calls[1]!.body.equals(api.calls[0]!.body)).toBe(true);
  });

  it('an expired token: a file given as a function is opened again for the replay; a one-shot stream fails retryably as request_body_spent', async () => {
    const expired = () => ({ status: 403, json: apiError('authorization_error', 'token expired') });
    api.on('POST', `${P}/reconciliations`, expired);
    api.on('POST', `${P}/reconciliations`, () => ({ status: 202, json: { request_id: REQ } }));
    expect(await submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { lines: () => [`${rid(1)},21`] } })).toBe(REQ);
    expect(api.calls[1]!.body.toString()).toBe(`${rid(1)},21\n`);

    api.on('POST', `${P}/reconciliations`, expired);
    const f = await rejectionOf(submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { lines: [`${rid(1)},21`] } }));
    expect(f).toMatchObject({ type: REQUEST_BODY_SPENT, nonRetryable: false });
  });

  it('input the reference would refuse is a final invalid_activity_input: a key that is not a UUID (before any request), a row that is not RID,code, more than 100,000 rows', async () => {
    expect(await rejectionOf(submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: 'study/closeout/1', file: { lines: [`${rid(1)},21`] } }))).toMatchObject({
      type: 'invalid_activity_input', nonRetryable: true,
    });
    expect(api.calls).toEqual([]);
    const bad = await rejectionOf(submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { lines: [`${rid(1)},21`, `${rid(2)},21,x`] } }));
    expect(bad).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(bad.message).toMatch(/row 2: is not "RID,reason code"/);
    function* many() {
      for (let i = 0; i <= 100_000; i += 1) yield `${i},21`;
    }
    const tooMany = await rejectionOf(submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { lines: many() } }));
    expect(tooMany).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(tooMany.message).toMatch(/more than 100000 rows/);
  });

  it('the API\'s refusal is its named, final error', async () => {
    api.on('POST', `${P}/reconciliations`, () => ({ status: 400, json: { ...apiError('bad_request_error', 'bad file'), invalid_params: [{ name: 'line 1', reason: 'not a reason code' }] } }));
    const f = await rejectionOf(submitReconciliations(api.caller(), { name: 'f.csv', idempotencyKey: KEY, file: { lines: [`${rid(1)},99`] } }));
    expect(f).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
    expect(f.details[0]).toMatchObject({ status: 400, invalid_params: [{ name: 'line 1', reason: 'not a reason code' }] });
  });
});

describe('post_reconciliations_completes', () => {
  it('posts one RID a line to the project, with the name and Idempotency-Key', async () => {
    api.on('POST', `${P}/projects/${PROJECT}/reconciliations/completes`, () => ({ status: 202, json: { name: 'keep.csv', request_id: REQ } }));
    expect(await submitApprovedCompletes(api.caller(), { projectId: PROJECT, name: 'keep.csv', idempotencyKey: KEY, file: { lines: [rid(1), rid(2)] } })).toBe(REQ);
    expect(api.calls[0]!.body.toString()).toBe(`${rid(1)}\n${rid(2)}\n`);
    expect(api.calls[0]!.headers['idempotency-key']).toBe(KEY);
    expect(await rejectionOf(submitApprovedCompletes(api.caller(), { projectId: PROJECT, name: 'keep.csv', idempotencyKey: KEY, file: { lines: [`${rid(1)},11`] } }))).toMatchObject({
      type: 'invalid_activity_input',
    });
  });
});

describe('get_reconciliation_by_request_id and its target groups', () => {
  it('a complete submission gives its counts (reversed = positive + negative); one still processing gives none', async () => {
    api.on('GET', `${P}/reconciliations/${REQ}`, () => ({
      status: 200,
      json: { request_id: REQ, name: 'f.csv', status: 'complete', submitted_count: 20, expired_count: 6, invalid_count: 4, positive_reversed_count: 7, negative_reversed_count: 3 },
    }));
    const done: SubmissionObservation = await observeSubmission(api.caller(), { requestId: REQ });
    expect(done).toEqual({ name: 'f.csv', requestId: REQ, status: 'complete', done: true, counts: { reversed: 10, expired: 6, invalid: 4 } });
    api.on('GET', `${P}/reconciliations/${REQ}`, () => ({ status: 200, json: { request_id: REQ, name: 'f.csv', status: 'processing' } }));
    expect(submissionOf(await getReconciliation(api.caller(), { requestId: REQ }))).toEqual({ name: 'f.csv', requestId: REQ, status: 'processing', done: false });
  });

  it('an unknown request is the API\'s final not_found_error', async () => {
    api.on('GET', `${P}/reconciliations/${REQ}`, () => ({ status: 404, json: apiError('not_found_error') }));
    expect(await rejectionOf(getReconciliation(api.caller(), { requestId: REQ }))).toMatchObject({ type: 'not_found_error', nonRetryable: true });
  });

  it('the target groups across next_cursor pages, and one of them', async () => {
    const tg = (id: string) => ({ target_group_id: id, status: 'complete', submitted_count: 2, expired_count: 0, invalid_count: 0, positive_reversed_count: 0, negative_reversed_count: 2 });
    api.on('GET', `${P}/reconciliations/${REQ}/target-groups`, () => ({ status: 200, json: { target_groups: [tg(TG1)], next_cursor: 'n1', page_size: 1 } }));
    api.on('GET', `${P}/reconciliations/${REQ}/target-groups`, (c) => {
      expect(c.query.get('start_after')).toBe('n1');
      return { status: 200, json: { target_groups: [tg(TG2)], page_size: 1 } };
    });
    expect((await reconciliationTargetGroups(api.caller(), { requestId: REQ, pageSize: 1 })).map((t) => t.target_group_id)).toEqual([TG1, TG2]);
    api.on('GET', `${P}/reconciliations/${REQ}/target-groups/${TG2}`, () => ({ status: 200, json: tg(TG2) }));
    expect(await reconciliationTargetGroup(api.caller(), { requestId: REQ, targetGroupId: TG2 })).toMatchObject({ target_group_id: TG2, negative_reversed_count: 2 });
  });
});

describe('get_recon_downloads', () => {
  it('hands the file over as it arrives: the caller reads the first rows before the rest is sent', async () => {
    let firstRead!: () => void;
    const callerHasFirstRows = new Promise<void>((resolve) => (firstRead = resolve));
    api.on('GET', `${P}/reconciliations/${REQ}/downloads/expired-rids`, () => ({
      status: 200,
      chunks: async function* () {
        yield `${rid(1)}\n${rid(2)}\n`;
        await callerHasFirstRows;
        yield `${rid(3)}\n`;
      },
    }));
    const file = await downloadReconciliationFile(api.caller(), { requestId: REQ, type: 'expired-rids' });
    const rows: string[] = [];
    for await (const [first] of csvRecords(file)) {
      rows.push(first!);
      if (rows.length === 2) firstRead();
    }
    expect(rows).toEqual([rid(1), rid(2), rid(3)]);
    // A file is asked for as one (a server that negotiates would refuse application/json only), an error as JSON.
    expect(api.calls[0]!.headers.accept).toBe('text/csv, application/json;q=0.5');
  });

  it('a cancelled caller (an activity\'s cancellation) ends a download in progress with its reason; a broken connection is a retryable network_error', async () => {
    let sent!: () => void;
    const firstSent = new Promise<void>((resolve) => (sent = resolve));
    api.on('GET', `${P}/reconciliations/${REQ}/downloads/submitted-rids`, () => ({
      status: 200,
      chunks: async function* () {
        yield `${rid(1)},21\n`;
        sent();
        await new Promise(() => undefined);
      },
    }));
    const controller = new AbortController();
    const caller = apiCaller(api.client(), { accountId: '1001', apiVersion: '2025-12-18', signal: controller.signal });
    const file = await downloadReconciliationFile(caller, { requestId: REQ, type: 'submitted-rids' });
    await firstSent;
    const reason = new Error('activity cancelled');
    const reading = (async () => {
      for await (const chunk of file) if (String(chunk).length > 0) controller.abort(reason);
    })();
    expect(await rejectionOf(reading)).toBe(reason);

    api.on('GET', `${P}/reconciliations/${REQ}/downloads/invalid-rids`, () => ({
      status: 200,
      chunks: async function* () {
        yield `${rid(1)}\n`;
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('connection lost');
      },
    }));
    let handedOver = false;
    const f = await rejectionOf((async () => {
      const broken = await downloadReconciliationFile(api.caller(), { requestId: REQ, type: 'invalid-rids' });
      handedOver = true;
      for await (const chunk of broken) void chunk;
    })());
    expect(handedOver).toBe(true);
    expect(f).toMatchObject({ type: 'network_error', nonRetryable: false });
  });

  it('a download not there yet is the API\'s final not_found_error (the body read, not handed over)', async () => {
    api.on('GET', `${P}/reconciliations/${REQ}/downloads/remaining-project-completes`, () => ({ status: 404, json: apiError('not_found_error', 'not processed yet') }));
    const f = await rejectionOf(downloadReconciliationFile(api.caller(), { requestId: REQ, type: 'remaining-project-completes' }));
    expect(f).toMatchObject({ type: 'not_found_error', nonRetryable: true });
    expect(f.details[0]).toMatchObject({ detail: 'not processed yet' });
  });

  it('429 is retryable after the Retry-After it gives', async () => {
    api.on('GET', `${P}/reconciliations/${REQ}/downloads/invalid-rids`, () => ({ status: 429, json: apiError('rate_limited'), headers: { 'retry-after': '7' } }));
    const f = await rejectionOf(downloadReconciliationFile(api.caller(), { requestId: REQ, type: 'invalid-rids' }));
    expect(f).toMatchObject({ type: 'rate_limited', nonRetryable: false });
    expect(f.details[0]).toMatchObject({ retry_after_ms: 7000 });
  });
});
