// Reports (the reference's Reports tag, version 2025-12-18):
//   POST P/reports/{report_type}             generate_report: 202 ReportGenerationResponse (status pending)
//   GET  P/reports/{report_id}/status        report_status: in_progress until the sandbox clock passes its due time
//                                            (creation + the job_duration_ms fault), then completed
//   GET  P/reports/{report_id}/download      download_report_v2: the CSV file (model/report-files.ts)
//   GET  P/reports                           report_requests: the account's requests, newest first
//   GET  P/reports/{report_id}/share?report_type   share_report: {report_pre_signed_url}, valid 15 minutes
//   GET  /_sandbox/reports/shared/{report_id}?expires&signature   what a pre-signed URL serves (no bearer)
// A report is generated when it completes, from the simulated sessions (the simulation first runs up to now)
// and the reconciliation requests.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest, notFound, type InvalidParam } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { ok, type Reply, type RequestContext, type RouteModule, type SandboxServices } from '../core/route-module';
import { SEEDED_ACCOUNTS } from '../core/seed-data';
import type { TargetGroupRecord } from '../core/state-records';
import { REPORT_LEVELS, REPORT_TYPES, reportFile, type ReportLevel, type ReportType } from '../model/report-files';
import { advanceSimulation, sessionsOf, simulatedNow } from './reporting-fielding-simulation';
import { pageOf, reconciliationsOf, settleDueReconciliations } from './reconciliations';
import { P } from './paths';

const REPORTS = `${P}/reports`;
const SLICE = 'reports';
const TICK_MS = 250;
const SHARE_TTL_MS = 15 * 60_000;
const SHARED_PATH = '/_sandbox/reports/shared';
const DAY_MS = 86_400_000;
/** "A single report request can cover a maximum duration of six months." */
const MAX_RANGE_DAYS = 184;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LEVEL_NAMES: Readonly<Record<ReportLevel, string>> = { account: 'Account', business_unit: 'Business Unit', project: 'Project', target_group: 'Target Group' };
/** The list's `Status` filter (the reference's Status enum) against the requests' statuses. */
const LIST_STATUS: Readonly<Record<string, string>> = { processing: 'pending', completed: 'completed', failed: 'failed' };

interface ReportRecord {
  seq: number;
  id: string;
  account_id: number;
  report_type: ReportType;
  level: ReportLevel;
  filter_ids: string[];
  start_date: string | null;
  end_date: string | null;
  report_options: { include_respondent_answers?: boolean | null; link_type?: number | null } | null;
  email_recipients: string[] | null;
  status: 'pending' | 'completed';
  created_at: string;
  due_at: number;
  /** The CSV file, once completed. */
  content: string | null;
}

interface ReportsSlice {
  reports: Record<string, ReportRecord>;
}

const reportsSlice = (services: Pick<SandboxServices, 'store'>) => services.store.slice<ReportsSlice>(SLICE, () => ({ reports: {} }));
const peekReports = (services: Pick<SandboxServices, 'store'>): Record<string, ReportRecord> =>
  (services.store.data.slices[SLICE] as ReportsSlice | undefined)?.reports ?? {};

/** The launched target groups a report covers. */
function groupsInScope(services: SandboxServices, report: ReportRecord): TargetGroupRecord[] {
  const ids = new Set(report.filter_ids);
  return Object.values(services.store.data.target_groups)
    .filter((tg) => tg.account_id === report.account_id && tg.status !== 'draft')
    .filter((tg) => {
      if (report.level === 'account') return true;
      if (report.level === 'business_unit') return tg.business_unit_id !== null && ids.has(String(tg.business_unit_id));
      if (report.level === 'project') return ids.has(tg.project_id);
      return ids.has(tg.id);
    })
    .sort((a, b) => a.seq - b.seq);
}

function rangeOf(report: ReportRecord): [number, number] | null {
  if (report.start_date === null && report.end_date === null) return null;
  const from = report.start_date ? Date.parse(`${report.start_date}T00:00:00Z`) : -Infinity;
  const to = report.end_date ? Date.parse(`${report.end_date}T00:00:00Z`) + DAY_MS : Infinity;
  return [from, to];
}

function generate(services: SandboxServices, report: ReportRecord): string {
  const groups = groupsInScope(services, report);
  const inScope = new Set(groups.map((g) => g.id));
  const reconciliations = report.report_type === 'reconciliations-status'
    ? reconciliationsOf(services, report.account_id).flatMap((r) =>
        r.target_groups
          .filter((c) => inScope.has(c.target_group_id))
          .map((c) => ({
            request_id: r.id, name: r.name, submission_type: r.submission_type, status: r.status, submitted_at: r.submitted_at,
            target_group_id: c.target_group_id, project_id: services.store.data.target_groups[c.target_group_id]?.project_id ?? '',
            submitted: c.submitted, expired: c.expired, invalid: c.invalid, positive_reversed: c.positive_reversed, negative_reversed: c.negative_reversed,
          })))
    : [];
  return reportFile({
    type: report.report_type,
    groups: groups.map((tg) => ({ id: tg.id, project_id: tg.project_id, name: tg.name ?? '', sessions: sessionsOf(services, tg.id) })),
    reconciliations,
    nowMs: simulatedNow(services),
    range: rangeOf(report),
  });
}

/** Generates every report whose due time passed on the sandbox clock. */
function settleDueReports(services: SandboxServices): void {
  const now = services.clock.now();
  const due = Object.values(peekReports(services)).filter((r) => r.status === 'pending' && r.due_at <= now).sort((a, b) => a.seq - b.seq);
  if (due.length === 0) return;
  settleDueReconciliations(services);
  advanceSimulation(services);
  for (const report of due) {
    report.content = generate(services, report);
    report.status = 'completed';
  }
  services.commit();
}

const reportUrl = (services: SandboxServices, report: ReportRecord) => `${services.info.base_url}/v1/demand/accounts/${report.account_id}/reports/${report.id}/download`;

function createParams(report: ReportRecord, forList: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (report.start_date) out.start_date = report.start_date;
  if (report.end_date) out.end_date = report.end_date;
  if (report.level !== 'account') out.filter = report.level;
  out.filter_ids = report.level === 'account' ? [String(report.account_id)] : [...report.filter_ids];
  // The list's link_type is a name, the request's a number: the list leaves it out.
  const options = report.report_options === null ? null : { ...report.report_options };
  if (forList && options) delete options.link_type;
  out.report_options = options;
  return out;
}

function readRequest(ctx: RequestContext): Omit<ReportRecord, 'seq' | 'id' | 'account_id' | 'status' | 'created_at' | 'due_at' | 'content'> {
  const type = ctx.params.report_type;
  if (!(REPORT_TYPES as readonly string[]).includes(type)) {
    throw badRequest('Unknown report type.', [{ name: 'report_type', reason: `must be one of ${REPORT_TYPES.join(', ')}` }]);
  }
  const reportType = type as ReportType;
  const reader = ObjectReader.body(ctx.body);
  reader.rejectUnknown(['filter', 'start_date', 'end_date', 'filter_ids', 'report_options', 'email_recipients']);
  const filter = reader.oneOf('filter', ['business_unit', 'target_group', 'project'], { nullable: true });
  const start = reader.string('start_date', { pattern: DATE, patternReason: 'must be a date YYYY-MM-DD' });
  const end = reader.string('end_date', { pattern: DATE, patternReason: 'must be a date YYYY-MM-DD' });
  const ids = reader.array('filter_ids');
  const options = reader.object('report_options', { nullable: true });
  let reportOptions: ReportRecord['report_options'] = null;
  if (options) {
    options.rejectUnknown(['include_respondent_answers', 'link_type']);
    const answers = options.boolean('include_respondent_answers', { nullable: true });
    const linkType = options.integer('link_type', { nullable: true, min: 0 });
    if (linkType !== undefined && linkType !== null && reportType !== 'term-details') options.fail('link_type', 'is for term-details reports only');
    reportOptions = {};
    if (answers !== undefined) reportOptions.include_respondent_answers = answers;
    if (linkType !== undefined) reportOptions.link_type = linkType;
  }
  const recipients = reader.array('email_recipients', { minItems: 1, maxItems: 5 });
  recipients?.forEach((r, i) => {
    if (typeof r !== 'string' || r.length === 0) reader.fail(`email_recipients[${i}]`, 'must be a user id');
  });
  const level: ReportLevel = filter ?? 'account';
  const allowed = REPORT_LEVELS[reportType];
  const multiplicity = allowed[level];
  if (!multiplicity) reader.fail('filter', `${reportType} reports are for ${Object.keys(allowed).join(', ')}${level === 'account' ? ' (give a filter)' : ''}`);
  const filterIds: string[] = [];
  if (level !== 'account' && multiplicity) {
    if (!ids || ids.length === 0) reader.fail('filter_ids', `is required for the ${level} level`);
    else if (multiplicity === 'one' && ids.length > 1) reader.fail('filter_ids', `takes one id at the ${level} level of ${reportType}`);
    ids?.forEach((id, i) => {
      const name = `filter_ids[${i}]`;
      if (typeof id !== 'string' || !ownsLevelId(ctx, level, id)) reader.fail(name, `is not a ${level.replace('_', ' ')} of the account`);
      else filterIds.push(id);
    });
  } else if (level === 'account' && ids && ids.some((id) => id !== String(ctx.account!.account_id))) {
    reader.fail('filter_ids', 'an account report takes no ids but the account\'s');
  }
  if (start && end && start > end) reader.fail('end_date', 'must not be before start_date');
  if (start && end && (Date.parse(end) - Date.parse(start)) / DAY_MS > MAX_RANGE_DAYS) reader.fail('end_date', 'a report covers at most six months');
  reader.finish('The report request is invalid.');
  return { report_type: reportType, level, filter_ids: filterIds, start_date: start ?? null, end_date: end ?? null, report_options: reportOptions, email_recipients: (recipients as string[] | undefined) ?? null };
}

function ownsLevelId(ctx: RequestContext, level: ReportLevel, id: string): boolean {
  const account = ctx.account!;
  const data = ctx.store.data;
  if (level === 'business_unit') return account.business_unit_ids.some((bu) => String(bu) === id);
  if (level === 'project') return data.projects[id]?.account_id === account.account_id;
  return data.target_groups[id]?.account_id === account.account_id;
}

function generateReport(ctx: RequestContext): Reply {
  const request = readRequest(ctx);
  const now = ctx.clock.now();
  const report: ReportRecord = {
    ...request,
    seq: ctx.store.nextSeq(),
    id: ctx.newId('report'),
    account_id: ctx.account!.account_id,
    status: 'pending',
    created_at: new Date(now).toISOString(),
    due_at: now + ctx.faults().job_duration_ms,
    content: null,
  };
  reportsSlice(ctx).reports[report.id] = report;
  return {
    status: 202,
    body: {
      message: 'Report Created',
      report_id: report.id,
      // The reference's schema requires a string: the URL the file will be at once completed.
      report_url: reportUrl(ctx, report),
      create_date: report.created_at,
      status: 'pending',
      report_type: report.report_type,
      level: LEVEL_NAMES[report.level],
      create_params: createParams(report, false),
    },
  };
}

function requireReport(ctx: RequestContext): ReportRecord {
  settleDueReports(ctx);
  const report = peekReports(ctx)[ctx.params.report_id];
  if (!report || report.account_id !== ctx.account!.account_id) throw notFound(`Report ${ctx.params.report_id} not found.`);
  return report;
}

function reportStatus(ctx: RequestContext): Reply {
  const report = requireReport(ctx);
  const done = report.status === 'completed';
  const body: Record<string, unknown> = { report_id: report.id, status: done ? 'completed' : 'in_progress', message: done ? 'Job successful' : 'Report generation is in progress.' };
  if (report.start_date) body.start_date = `${report.start_date}T00:00:00.000Z`;
  if (report.end_date) body.end_date = `${report.end_date}T00:00:00.000Z`;
  if (done) body.report_url = reportUrl(ctx, report);
  Object.assign(body, { data_analysis: false, respondent_answer: report.report_options?.include_respondent_answers ?? false });
  return ok(body);
}

function notCompleted(report: ReportRecord): ApiError {
  return badRequest(`Report ${report.id} is not completed yet; poll its status.`, [{ name: 'report_id', reason: 'the report is not completed yet' }]);
}

/**
 * The file, with the simulated now as its `Date` (the clock the reconciliation windows run on), so that a reader
 * of the eligible RIDs judges their windows by the exchange's time.
 */
const csvReply = (services: SandboxServices, content: string): Reply => ({
  status: 200,
  text: { contentType: 'text/csv; charset=utf-8', content },
  headers: { date: new Date(simulatedNow(services)).toUTCString() },
});

function downloadReport(ctx: RequestContext): Reply {
  const report = requireReport(ctx);
  if (report.content === null) throw notCompleted(report);
  return csvReply(ctx, report.content);
}

function listReports(ctx: RequestContext): Reply {
  const q = ctx.query;
  const problems: InvalidParam[] = [];
  const type = q.get('report_type');
  if (type !== null && !(REPORT_TYPES as readonly string[]).includes(type)) problems.push({ name: 'report_type', reason: `must be one of ${REPORT_TYPES.join(', ')}` });
  const level = q.get('level');
  if (level !== null && !(level in LEVEL_NAMES)) problems.push({ name: 'level', reason: 'must be one of account, project, target_group, business_unit' });
  const status = q.get('Status');
  if (status !== null && !(status in LIST_STATUS)) problems.push({ name: 'Status', reason: 'must be one of processing, failed, completed' });
  if (problems.length > 0) throw badRequest('The request is invalid.', problems);
  settleDueReports(ctx);
  const accountName = SEEDED_ACCOUNTS.find((a) => a.account_id === ctx.account!.account_id)?.name ?? null;
  const items = Object.values(peekReports(ctx))
    .filter((r) => r.account_id === ctx.account!.account_id && (type === null || r.report_type === type) && (level === null || r.level === level) && (status === null || r.status === LIST_STATUS[status]))
    .sort((a, b) => b.seq - a.seq);
  const page = pageOf(items, q);
  return ok({
    next_cursor: page.next_cursor,
    reports_requests: page.data.map((r) => {
      const item: Record<string, unknown> = { account_name: accountName, create_date: r.created_at, create_params: createParams(r, true), report_id: r.id, report_type: r.report_type };
      if (r.status === 'completed') item.report_url = reportUrl(ctx, r);
      Object.assign(item, { status: r.status, level: LEVEL_NAMES[r.level] });
      return item;
    }),
  });
}

const signatureOf = (services: SandboxServices, reportId: string, expires: number) =>
  createHmac('sha256', services.store.data.token_signing_key).update(`report-share.${reportId}.${expires}`).digest('hex');

function shareReport(ctx: RequestContext): Reply {
  const type = ctx.query.get('report_type');
  if (type === null || !(REPORT_TYPES as readonly string[]).includes(type)) {
    throw badRequest('report_type is required.', [{ name: 'report_type', reason: `is required: one of ${REPORT_TYPES.join(', ')}` }]);
  }
  const report = requireReport(ctx);
  if (report.report_type !== type) throw notFound(`Report ${report.id} is not a ${type} report.`);
  if (report.content === null) throw notCompleted(report);
  const expires = Math.ceil((ctx.clock.now() + SHARE_TTL_MS) / 1000);
  return ok({ report_pre_signed_url: `${ctx.info.base_url}${SHARED_PATH}/${report.id}?expires=${expires}&signature=${signatureOf(ctx, report.id, expires)}` });
}

/** What a pre-signed URL serves: the file, without a bearer, while the URL is valid (403 once expired or altered). */
function sharedFile(ctx: RequestContext): Reply {
  const report = peekReports(ctx)[ctx.params.report_id];
  const expires = Number(ctx.query.get('expires'));
  const given = Buffer.from(ctx.query.get('signature') ?? '', 'utf8');
  const expected = report ? Buffer.from(signatureOf(ctx, report.id, expires), 'utf8') : Buffer.alloc(0);
  const valid = report !== undefined && report.content !== null && Number.isFinite(expires) && given.length === expected.length && timingSafeEqual(given, expected);
  if (!valid || expires * 1000 <= ctx.clock.now()) throw new ApiError(403, 'authorization_error', 'The shared link is invalid or has expired; ask for a new one.');
  return csvReply(ctx, report.content!);
}

export const reportsRoutes: RouteModule = {
  name: 'reports',
  routes: [
    { method: 'GET', path: REPORTS, handler: listReports },
    { method: 'POST', path: `${REPORTS}/{report_type}`, handler: generateReport },
    { method: 'GET', path: `${REPORTS}/{report_id}/status`, handler: reportStatus },
    { method: 'GET', path: `${REPORTS}/{report_id}/download`, handler: downloadReport },
    { method: 'GET', path: `${REPORTS}/{report_id}/share`, handler: shareReport },
    { method: 'GET', path: `${SHARED_PATH}/{report_id}`, handler: sharedFile },
  ],
  init(services) {
    return services.ticks.register('reports', TICK_MS, () => settleDueReports(services));
  },
};
