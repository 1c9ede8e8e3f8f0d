// Reports (the close-out's archive, issue 36): generate one (an asynchronous job), read its status, download its
// file streamed, list the account's report requests, get a shareable link; and the eligible RIDs of a project or
// target groups, built on the `reconciliation-eligible-rids` report (generate, await, download, read streaming).
import { ApplicationFailure } from '@temporalio/common';
import type { Readable } from 'node:stream';
import { invalidInputFailure } from '../http/errors';
import { readAnswer, wireMismatchFailure } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import {
  LIST_REPORT_REQUESTS,
  ReportGenerationAnswer,
  ReportGenerationRequest,
  ReportShareAnswer,
  ReportStatusAnswer,
  type ReportFilter,
  type ReportRequestItem,
  type ReportState,
  type ReportType,
} from '../wire/reports';
import { accountPath, seg, type ApiCaller } from './caller';
import { csvRecords } from './csv-stream';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';

const reportsPath = (caller: ApiCaller) => `${accountPath(caller)}/reports`;

/** Failure `type` of a report the exchange says failed; non-retryable (a new one must be generated). */
export const REPORT_FAILED = 'report_failed';
/** Failure `type` of a report not ready within the wait; retryable (the activity's retry waits again). */
export const REPORT_NOT_READY = 'report_not_ready';

export interface ReportRequest {
  type: ReportType;
  /** The level of `ids` (the reference's `filter`); leave it out with the ids for the account's level. */
  filter?: ReportFilter;
  ids?: string[];
  /** `YYYY-MM-DD` (the reference: at most six months, within the last twelve). */
  startDate?: string;
  endDate?: string;
  includeRespondentAnswers?: boolean;
  /** Up to five user ids to email the report to. */
  emailRecipients?: string[];
}

/** A report job as generate_report and report_status give it. */
export interface ReportJob {
  reportId: string;
  state: ReportState | 'pending';
  /** The download URL once completed (null or absent before). */
  reportUrl?: string;
  message?: string;
}

/** generate_report `POST P/reports/{report_type}` `{filter, filter_ids, start_date, end_date, report_options?, email_recipients?}` -> 202. */
export async function generateReport(caller: ApiCaller, input: ReportRequest): Promise<ReportJob> {
  const json = requestBody('generateReport', 'generate_report', ReportGenerationRequest, {
    filter: input.filter,
    filter_ids: input.ids,
    start_date: input.startDate,
    end_date: input.endDate,
    report_options: input.includeRespondentAnswers === undefined ? undefined : { include_respondent_answers: input.includeRespondentAnswers },
    email_recipients: input.emailRecipients,
  });
  const req = { method: 'POST', path: `${reportsPath(caller)}/${seg(input.type)}`, json } as const;
  const body = readAnswer({ operation: 'generate_report', method: req.method, path: req.path }, ReportGenerationAnswer, await caller.send(req));
  const out: ReportJob = { reportId: body.report_id, state: body.status === 'failed' ? 'failed' : 'pending', message: body.message };
  if (body.report_url) out.reportUrl = body.report_url;
  return out;
}

/** report_status `GET P/reports/{report_id}/status`. */
export async function reportStatus(caller: ApiCaller, input: { reportId: string }): Promise<ReportJob> {
  const req = { method: 'GET', path: `${reportsPath(caller)}/${seg(input.reportId)}/status` } as const;
  const body = readAnswer({ operation: 'report_status', ...req }, ReportStatusAnswer, await caller.send(req));
  const out: ReportJob = { reportId: body.report_id ?? input.reportId, state: body.status };
  if (body.report_url) out.reportUrl = body.report_url;
  if (body.message !== undefined) out.message = body.message;
  return out;
}

export interface AwaitReportOptions {
  /** Between status reads; default 5 s. */
  intervalMs?: number;
  /** Gives up (retryably, {@link REPORT_NOT_READY}) after this long; default 10 minutes. */
  maxWaitMs?: number;
  /** Waits; default setTimeout. Tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

/** Reads report_status until the report is completed (each read told to `caller.progress`); a failed report is {@link REPORT_FAILED}. */
export async function awaitReport(caller: ApiCaller, input: { reportId: string } & AwaitReportOptions): Promise<ReportJob> {
  const interval = input.intervalMs ?? 5000;
  const maxWait = input.maxWaitMs ?? 10 * 60_000;
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let waited = 0, reads = 1; ; reads += 1) {
    const job = await reportStatus(caller, input);
    caller.progress?.({ reportId: input.reportId, state: job.state, reads });
    if (job.state === 'completed') return job;
    if (job.state === 'failed') {
      throw ApplicationFailure.create({
        message: `report ${input.reportId} failed${job.message ? `: ${job.message}` : ''}`, type: REPORT_FAILED, nonRetryable: true, details: [{ reportId: input.reportId }],
      });
    }
    if (waited + interval > maxWait) {
      throw ApplicationFailure.create({
        message: `report ${input.reportId} is still ${job.state} after ${waited} ms`, type: REPORT_NOT_READY, nonRetryable: false, details: [{ reportId: input.reportId }],
      });
    }
    await sleep(interval);
    waited += interval;
  }
}

/** The media types of a report file (the reference: CSV or a spreadsheet), and JSON for an error. */
const REPORT_FILE_ACCEPT = 'text/csv, application/vnd.ms-excel, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/json;q=0.5';

/** A downloaded report: its content type (text/csv or a spreadsheet's) and its body, unread. */
export interface ReportFile {
  contentType: string;
  /** Consume or destroy it. */
  body: Readable;
  /** The exchange's clock when it answered (its `Date` header, as ISO 8601); absent without one. */
  answeredAt?: string;
}

/** download_report_v2 `GET P/reports/{report_id}/download`: the file as a Readable, unread. */
export async function downloadReport(caller: ApiCaller, input: { reportId: string }): Promise<ReportFile> {
  const req = { method: 'GET', path: `${reportsPath(caller)}/${seg(input.reportId)}/download`, streamAnswer: true, accept: REPORT_FILE_ACCEPT } as const;
  const res = await caller.send<Readable>(req);
  const out: ReportFile = { contentType: res.headers['content-type'] ?? '', body: res.body };
  const date = res.headers.date ? Date.parse(res.headers.date) : NaN;
  if (!Number.isNaN(date)) out.answeredAt = new Date(date).toISOString();
  return out;
}

export interface ReportRequestsQuery {
  type?: ReportType;
  /** The reference's Level: account, project, target_group, business_unit. */
  level?: 'account' | 'project' | 'target_group' | 'business_unit';
  /** The reference's `Status` query: processing, failed, completed. */
  status?: 'processing' | 'failed' | 'completed';
  pageSize?: number;
}

/** report_requests `GET P/reports`: every page. */
export async function reportRequests(caller: ApiCaller, query: ReportRequestsQuery = {}): Promise<ReportRequestItem[]> {
  const req = { method: 'GET', path: reportsPath(caller), query: { report_type: query.type, level: query.level, Status: query.status } } as const;
  return listAllPages(caller, req, LIST_REPORT_REQUESTS, query.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
}

/** share_report `GET P/reports/{report_id}/share?report_type=…`: a pre-signed URL that expires (never store it). */
export async function shareReport(caller: ApiCaller, input: { reportId: string; type: ReportType }): Promise<string> {
  const req = { method: 'GET', path: `${reportsPath(caller)}/${seg(input.reportId)}/share`, query: { report_type: input.type } } as const;
  return readAnswer({ operation: 'share_report', method: req.method, path: req.path }, ReportShareAnswer, await caller.send(req)).report_pre_signed_url;
}

/** An eligible complete: the target group it completed in and when (as the report gives it). */
export interface EligibleRid {
  targetGroupId: string;
  completedAt: string;
}

/**
 * The columns of the `reconciliation-eligible-rids` report studyflow reads, by header name (the reference lists no
 * columns: docs/api-conventions.md, Ours). Any order; other columns are ignored; names are matched case-blind.
 */
export const ELIGIBLE_RIDS_COLUMNS = { rid: 'rid', targetGroupId: 'target_group_id', completedAt: 'completed_at' } as const;

/** Reads the eligible-RIDs report streaming: RIDs in lower case -> where and when they completed. */
export async function readEligibleRids(source: AsyncIterable<Uint8Array | string>, call: { path: string } = { path: '(report file)' }): Promise<Map<string, EligibleRid>> {
  const out = new Map<string, EligibleRid>();
  let at: { rid: number; targetGroupId: number; completedAt: number } | undefined;
  let line = 0;
  const mismatch = (problem: string) => wireMismatchFailure({ operation: 'download_report_v2', method: 'GET', path: call.path }, 200, `a CSV report (line ${line})`, [problem]);
  for await (const record of csvRecords(source)) {
    line += 1;
    if (!at) {
      const names = record.map((name) => name.trim().toLowerCase());
      const index = (name: string) => names.indexOf(name);
      at = { rid: index(ELIGIBLE_RIDS_COLUMNS.rid), targetGroupId: index(ELIGIBLE_RIDS_COLUMNS.targetGroupId), completedAt: index(ELIGIBLE_RIDS_COLUMNS.completedAt) };
      const missing = Object.entries(ELIGIBLE_RIDS_COLUMNS).filter(([key]) => at![key as keyof typeof at] < 0).map(([, name]) => name);
      if (missing.length > 0) throw mismatch(`the header has no column ${missing.join(', ')}`);
      continue;
    }
    const rid = (record[at.rid] ?? '').trim().toLowerCase();
    const targetGroupId = (record[at.targetGroupId] ?? '').trim();
    const completedAt = (record[at.completedAt] ?? '').trim();
    if (rid === '' || targetGroupId === '') throw mismatch('a row without its RID or target group');
    out.set(rid, { targetGroupId, completedAt });
  }
  if (!at) throw mismatch('the file has no header');
  return out;
}

export interface EligibleRidsInput extends AwaitReportOptions {
  /** `YYYY-MM-DD`, sent as given (the reference: at most six months, within the last twelve). */
  startDate?: string;
  endDate?: string;
}

/** An eligible-RIDs report, read: the RIDs, the report's id, and the exchange's clock when it answered the download. */
export interface EligibleRidsReport {
  rids: Map<string, EligibleRid>;
  reportId: string;
  /** The download answer's `Date` (the exchange's time, which judges the windows); absent without one. */
  exchangeNow?: string;
}

/**
 * The completes that can still be reconciled, of a project (one id, as the reference allows at that level) or of
 * target groups (several in one report): the `reconciliation-eligible-rids` report generated, awaited, downloaded and
 * read streaming. Each call generates a new report.
 */
export async function eligibleRidsReport(caller: ApiCaller, input: EligibleRidsInput & ({ projectId: string } | { targetGroupIds: string[] })): Promise<EligibleRidsReport> {
  const [filter, ids]: [ReportFilter, string[]] = 'projectId' in input ? ['project', [input.projectId]] : ['target_group', input.targetGroupIds];
  if (ids.length === 0 || ids.some((id) => id.trim() === '')) throw invalidInputFailure('eligibleRidsReport', `no ${filter} id`);
  const job = await generateReport(caller, { type: 'reconciliation-eligible-rids', filter, ids, startDate: input.startDate, endDate: input.endDate });
  if (job.state === 'failed') {
    throw ApplicationFailure.create({ message: `report ${job.reportId} failed at once${job.message ? `: ${job.message}` : ''}`, type: REPORT_FAILED, nonRetryable: true });
  }
  await awaitReport(caller, { reportId: job.reportId, intervalMs: input.intervalMs, maxWaitMs: input.maxWaitMs, sleep: input.sleep });
  const file = await downloadReport(caller, { reportId: job.reportId });
  try {
    const rids = await readEligibleRids(file.body, { path: `${reportsPath(caller)}/${seg(job.reportId)}/download` });
    return file.answeredAt === undefined ? { rids, reportId: job.reportId } : { rids, reportId: job.reportId, exchangeNow: file.answeredAt };
  } finally {
    file.body.destroy();
  }
}

/** The eligible completes of a project: RID (lower case) -> its target group and completion time. */
export async function eligibleRidsOfProject(caller: ApiCaller, input: EligibleRidsInput & { projectId: string }): Promise<Map<string, EligibleRid>> {
  return (await eligibleRidsReport(caller, input)).rids;
}

/** The eligible completes of target groups (one report for all of them). */
export async function eligibleRidsOfTargetGroups(caller: ApiCaller, input: EligibleRidsInput & { targetGroupIds: string[] }): Promise<Map<string, EligibleRid>> {
  return (await eligibleRidsReport(caller, input)).rids;
}
