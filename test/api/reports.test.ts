// The close-out's report operations (api/operations/reports.ts) against a local API on 127.0.0.1: generate (type in
// the path, level and ids in the body), status as the reference's examples write it, waiting on it, the download
// streamed, the account's report requests across pages, share; and the eligible RIDs of a project read streaming from
// the `reconciliation-eligible-rids` report, RIDs in lower case. Failures are the client's named ones.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvRecords } from '../../api/operations/csv-stream';
import {
  awaitReport,
  downloadReport,
  eligibleRidsOfProject,
  eligibleRidsOfTargetGroups,
  eligibleRidsReport,
  generateReport,
  readEligibleRids,
  REPORT_FAILED,
  REPORT_NOT_READY,
  reportRequests,
  reportStatus,
  shareReport,
} from '../../api/operations/reports';
import { rejectionOf } from '../activities/helpers/mock-api';
import { apiError, P, startLocalApi, type LocalApi } from './helpers/local-api';

const REPORT = '01HY3NF37B6J2ABPA3H49C92YZ';
const PROJECT = '01JPR0JECT0000000000000001';
const TG1 = '01JTARGETGR0VP000000000001';
const TG2 = '01JTARGETGR0VP000000000002';
const pending = { message: 'Report Created', report_id: REPORT, report_url: null, create_date: '2025-07-11T14:02:14Z', status: 'pending', report_type: 'reconciliation-eligible-rids', level: 'project' };
const status = (s: string, url: string | null = null) => ({ status: 200, json: { report_id: REPORT, status: s, message: s, report_url: url } });

let api: LocalApi;
beforeEach(async () => {
  api = await startLocalApi();
});
afterEach(async () => {
  expect(api.pending()).toEqual([]);
  await api.close();
});

async function* chunked(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
}

describe('generate_report', () => {
  it('the type in the path, the level and ids in the body as the reference takes them; 202 read with its null report_url', async () => {
    api.on('POST', `${P}/reports/completes`, () => ({ status: 202, json: { ...pending, report_type: 'completes' } }));
    const job = await generateReport(api.caller(), { type: 'completes', filter: 'target_group', ids: [TG1, TG2], startDate: '2026-10-01', endDate: '2026-11-27', includeRespondentAnswers: false });
    expect(job).toEqual({ reportId: REPORT, state: 'pending', message: 'Report Created' });
    expect(JSON.parse(api.calls[0]!.body.toString())).toEqual({
      filter: 'target_group', filter_ids: [TG1, TG2], start_date: '2026-10-01', end_date: '2026-11-27', report_options: { include_respondent_answers: false },
    });
    expect(api.calls[0]!.headers['content-type']).toBe('application/json');
  });

  it('a request the reference would refuse is not sent: a date not YYYY-MM-DD, six email recipients', async () => {
    expect(await rejectionOf(generateReport(api.caller(), { type: 'completes', startDate: '1 Oct 2026' }))).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    const f = await rejectionOf(generateReport(api.caller(), { type: 'completes', emailRecipients: ['a', 'b', 'c', 'd', 'e', 'f'] }));
    expect(f.message).toMatch(/generate_report body the reference would refuse: email_recipients/);
    expect(api.calls).toEqual([]);
  });

  it('the API\'s refusal is its named, final error; an answer without report_id is wire_mismatch', async () => {
    api.on('POST', `${P}/reports/term-details`, () => ({ status: 400, json: apiError('bad_request_error', 'only one id allowed') }));
    expect(await rejectionOf(generateReport(api.caller(), { type: 'term-details', filter: 'target_group', ids: [TG1, TG2] }))).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
    api.on('POST', `${P}/reports/completes`, () => ({ status: 202, json: { message: 'Report Created', status: 'pending', report_url: null } }));
    const f = await rejectionOf(generateReport(api.caller(), { type: 'completes' }));
    expect(f).toMatchObject({ type: 'wire_mismatch' });
    expect(f.details[0]).toMatchObject({ operation: 'generate_report' });
  });
});

describe('report_status and awaiting a report', () => {
  it('reads the reference\'s enum and its examples\' spelling alike (IN PROGRESS, COMPLETED)', async () => {
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('IN PROGRESS'));
    expect(await reportStatus(api.caller(), { reportId: REPORT })).toEqual({ reportId: REPORT, state: 'in_progress', message: 'IN PROGRESS' });
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('COMPLETED', 'https://exchange.example/r.csv'));
    expect(await reportStatus(api.caller(), { reportId: REPORT })).toMatchObject({ state: 'completed', reportUrl: 'https://exchange.example/r.csv' });
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('queued'));
    expect(await rejectionOf(reportStatus(api.caller(), { reportId: REPORT }))).toMatchObject({ type: 'wire_mismatch' });
  });

  it('polls until completed, telling each read to the caller; waits between reads', async () => {
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('in_progress'), 2);
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('completed'));
    const slept: number[] = [];
    const progress: Array<Record<string, unknown>> = [];
    const job = await awaitReport(api.caller({ progress: (p) => progress.push(p) }), { reportId: REPORT, intervalMs: 1000, sleep: async (ms) => void slept.push(ms) });
    expect(job.state).toBe('completed');
    expect(slept).toEqual([1000, 1000]);
    expect(progress.map((p) => p.state)).toEqual(['in_progress', 'in_progress', 'completed']);
  });

  it('a failed report is report_failed (final); one not ready within the wait is report_not_ready (retryable)', async () => {
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('failed'));
    expect(await rejectionOf(awaitReport(api.caller(), { reportId: REPORT, sleep: async () => undefined }))).toMatchObject({ type: REPORT_FAILED, nonRetryable: true });
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('in_progress'), 3);
    expect(await rejectionOf(awaitReport(api.caller(), { reportId: REPORT, intervalMs: 10, maxWaitMs: 25, sleep: async () => undefined }))).toMatchObject({
      type: REPORT_NOT_READY, nonRetryable: false,
    });
  });
});

describe('download_report_v2', () => {
  it('hands the file over as it arrives, with its content type', async () => {
    let firstRead!: () => void;
    const callerHasFirstRow = new Promise<void>((resolve) => (firstRead = resolve));
    api.on('GET', `${P}/reports/${REPORT}/download`, () => ({
      status: 200,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      chunks: async function* () {
        yield 'a,b\r\n1,2\r\n';
        await callerHasFirstRow;
        yield '3,4\r\n';
      },
    }));
    const file = await downloadReport(api.caller(), { reportId: REPORT });
    expect(file.contentType).toBe('text/csv; charset=utf-8');
    const rows: string[][] = [];
    for await (const record of csvRecords(file.body)) {
      rows.push(record);
      if (rows.length === 2) firstRead();
    }
    expect(rows).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
    expect(api.calls[0]!.headers.accept).toMatch(/^text\/csv, application\/vnd\.ms-excel, application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet, application\/json;q=0\.5$/);
    expect(api.calls.length).toBe(1);
  });

  it('a report not completed yet is the API\'s final bad_request_error', async () => {
    api.on('GET', `${P}/reports/${REPORT}/download`, () => ({ status: 400, json: apiError('bad_request_error', 'not completed yet') }));
    expect(await rejectionOf(downloadReport(api.caller(), { reportId: REPORT }))).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
  });
});

describe('report_requests and share_report', () => {
  it('walks next_cursor pages with the type, level and Status filters', async () => {
    const item = (id: string) => ({ report_id: id, report_type: 'completes', status: 'completed', level: 'Project', create_params: { filter: 'project', filter_ids: [PROJECT] } });
    api.on('GET', `${P}/reports`, () => ({ status: 200, json: { reports_requests: [item(REPORT)], next_cursor: 'bff6a669-a469-409d-8c94-dcf92258043a' } }));
    api.on('GET', `${P}/reports`, (c) => {
      expect(c.query.get('start_after')).toBe('bff6a669-a469-409d-8c94-dcf92258043a');
      return { status: 200, json: { reports_requests: [item('01HY3NF37B6J2ABPA3H49C92Z0')], next_cursor: null } };
    });
    const out = await reportRequests(api.caller(), { type: 'completes', level: 'project', status: 'completed', pageSize: 1 });
    expect(out.map((r) => r.report_id)).toEqual([REPORT, '01HY3NF37B6J2ABPA3H49C92Z0']);
    expect(Object.fromEntries(api.calls[0]!.query)).toEqual({ report_type: 'completes', level: 'project', Status: 'completed', page_size: '1' });
  });

  it('share asks with the report type and gives the pre-signed URL', async () => {
    api.on('GET', `${P}/reports/${REPORT}/share`, (c) => {
      expect(c.query.get('report_type')).toBe('completes');
      return { status: 200, json: { report_pre_signed_url: 'https://reports.example/r.csv?sig=1' } };
    });
    expect(await shareReport(api.caller(), { reportId: REPORT, type: 'completes' })).toBe('https://reports.example/r.csv?sig=1');
  });
});

describe('eligible RIDs: the reconciliation-eligible-rids report', () => {
  const csv = [
    'rid,project_id,target_group_id,target_group_name,completed_at,reconcile_until',
    `0F1CE179-A917-49FF-9D50-B05FC91F7BD4,${PROJECT},${TG1},"Nurses, US",2026-11-02T10:00:00.000Z,2026-12-25T23:59:59.999Z`,
    `75f1404c-65f6-4937-ad2a-588e4f66e07f,${PROJECT},${TG2},"Say ""hi""",2026-11-03T11:00:00.000Z,2026-12-25T23:59:59.999Z`,
  ].join('\r\n') + '\r\n';

  it('generates it for the project (one id), waits, downloads and reads it streaming: RIDs in lower case -> target group and completion', async () => {
    api.on('POST', `${P}/reports/reconciliation-eligible-rids`, (c) => {
      expect(JSON.parse(c.body.toString())).toEqual({ filter: 'project', filter_ids: [PROJECT] });
      return { status: 202, json: pending };
    });
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('in_progress'));
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('completed'));
    // Seven-byte chunks: records, quoted fields and line ends cross chunk boundaries.
    api.on('GET', `${P}/reports/${REPORT}/download`, () => ({ status: 200, headers: { date: 'Sat, 28 Nov 2026 04:00:00 GMT' }, chunks: async function* () {
      for (let i = 0; i < csv.length; i += 7) yield csv.slice(i, i + 7);
    } }));
    const report = await eligibleRidsReport(api.caller(), { projectId: PROJECT, sleep: async () => undefined });
    expect([...report.rids]).toEqual([
      ['0f1ce179-a917-49ff-9d50-b05fc91f7bd4', { targetGroupId: TG1, completedAt: '2026-11-02T10:00:00.000Z' }],
      ['75f1404c-65f6-4937-ad2a-588e4f66e07f', { targetGroupId: TG2, completedAt: '2026-11-03T11:00:00.000Z' }],
    ]);
    expect(report).toMatchObject({ reportId: REPORT, exchangeNow: '2026-11-28T04:00:00.000Z' });
  });

  it('per target groups: one report with every id; eligibleRidsOfProject gives the map', async () => {
    api.on('POST', `${P}/reports/reconciliation-eligible-rids`, (c) => {
      expect(JSON.parse(c.body.toString())).toEqual({ filter: 'target_group', filter_ids: [TG1, TG2] });
      return { status: 202, json: pending };
    });
    api.on('GET', `${P}/reports/${REPORT}/status`, () => status('completed'), 2);
    api.on('GET', `${P}/reports/${REPORT}/download`, () => ({ status: 200, text: csv }), 2);
    expect((await eligibleRidsOfTargetGroups(api.caller(), { targetGroupIds: [TG1, TG2] })).size).toBe(2);
    api.on('POST', `${P}/reports/reconciliation-eligible-rids`, () => ({ status: 202, json: pending }));
    expect((await eligibleRidsOfProject(api.caller(), { projectId: PROJECT })).get('75f1404c-65f6-4937-ad2a-588e4f66e07f')).toEqual({ targetGroupId: TG2, completedAt: '2026-11-03T11:00:00.000Z' });
    expect(await rejectionOf(eligibleRidsOfTargetGroups(api.caller(), { targetGroupIds: [] }))).toMatchObject({ type: 'invalid_activity_input' });
  });

  it('a file without the columns studyflow reads is wire_mismatch naming the missing ones; columns in another order and case are read', async () => {
    const missing = await rejectionOf(readEligibleRids(chunked('rid,project_id,completed_at\r\nabc,p,2026-11-02T10:00:00Z\r\n', 5)));
    expect(missing).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(missing.details[0].problems).toEqual(['the header has no column target_group_id']);
    const reordered = await readEligibleRids(chunked(`Completed_At,TARGET_GROUP_ID,RID\n2026-11-02T10:00:00Z,${TG1},ABC-1\n`, 3));
    expect([...reordered]).toEqual([['abc-1', { targetGroupId: TG1, completedAt: '2026-11-02T10:00:00Z' }]]);
    expect(await rejectionOf(readEligibleRids(chunked('', 1)))).toMatchObject({ type: 'wire_mismatch' });
  });
});

describe('csvRecords', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, empty fields, CRLF and LF, across any chunking', async () => {
    const text = 'a,"b,1","say ""x""",\r\n"multi\nline",,z\n\nlast';
    for (const size of [1, 2, 5, 100]) {
      const out: string[][] = [];
      for await (const r of csvRecords(chunked(text, size))) out.push(r);
      expect(out, `chunks of ${size}`).toEqual([['a', 'b,1', 'say "x"', ''], ['multi\nline', '', 'z'], ['last']]);
    }
  });

  it('a multi-byte character split across chunks is read whole', async () => {
    const bytes = Buffer.from('é,ü\n');
    const out: string[][] = [];
    for await (const r of csvRecords((async function* () {
      for (const b of bytes) yield Buffer.from([b]);
    })())) out.push(r);
    expect(out).toEqual([['é', 'ü']]);
  });
});
