// Reconciliations (close-out; the reference's Reconciliations tag, version 2025-12-18):
//   GET  P/reconciliations                                         get_reconciliations_by_account_id
//   POST P/reconciliations?name                                    post_reconciliations (text/csv `RID,code`; 202 {name, request_id})
//   GET  P/reconciliations/{request_id}                            get_reconciliation_by_request_id
//   GET  P/reconciliations/{request_id}/target-groups              get_target_groups_by_request_id
//   GET  P/reconciliations/{request_id}/target-groups/{tg_id}      get_target_group_by_request_id_and_target_group_id
//   GET  P/reconciliations/{request_id}/downloads/{download_type}  get_recon_downloads (text/csv)
//   GET  P/reconciliations/eligible-target-groups                  get_eligible_target_groups
//   POST P/projects/{project_id}/reconciliations/completes?name    post_reconciliations_completes (text/csv `RID`)
//   GET  P/reconciliations/reason-codes                            request_reconciliation_reason_codes
//   GET  /_sandbox/fielding/target-groups/{target_group_id}/rids   admin: RIDs (session ids), statuses, windows
// A request is `processing` until the sandbox clock passes its due time (submission + the job_duration_ms
// fault), then `complete`: each row is judged against the sessions of the fielding simulation, its window by
// the simulated time of the submission (model/reconciliation.ts); a reversed complete becomes Terminate in the
// simulation (metrics, quota counters and completes_cost follow; a session-updated event is emitted).

import { badRequest, notFound, type InvalidParam } from '../core/api-error';
import { encodeCursor, parsePageRequest } from '../core/pagination';
import { ok, type Reply, type RequestContext, type RouteModule, type SandboxServices } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { moneyFromMinorUnits, toMinorUnits } from '../model/money';
import {
  REASON_CODES,
  dueMonthRange,
  readReconciliationFile,
  reconciliationDeadlineMs,
  withinReconciliationWindow,
  type ReconciliationRow,
} from '../model/reconciliation';
import type { SessionRecord } from '../model/session-record';
import { advanceSimulation, changeSessionStatuses, READ_STALENESS_MS, sessionsOf, simulatedNow } from './reporting-fielding-simulation';
import { P, PROJECT } from './paths';

const RECONCILIATIONS = `${P}/reconciliations`;
const REQUEST = `${RECONCILIATIONS}/{request_id}`;
const SLICE = 'reconciliations';
const TICK_MS = 250;
/** The reference's PageSize: between 1 and 100, default 10. */
export const REFERENCE_PAGE = { max: 100, default: 10 };
/** Target groups whose sessions can be reconciled (reference: post_reconciliations). */
const RECONCILABLE: readonly string[] = ['live', 'paused', 'completed'];
const DOWNLOAD_TYPES = ['submitted-rids', 'expired-rids', 'invalid-rids', 'remaining-project-completes'] as const;
const CSV_TYPES = ['text/csv', 'application/csv'];

export type SubmissionType = 'rejected_rids' | 'approved_rids';

export interface TargetGroupCounts {
  target_group_id: string;
  submitted: number;
  expired: number;
  invalid: number;
  positive_reversed: number;
  negative_reversed: number;
}

export interface ReconciliationRecord {
  seq: number;
  id: string;
  account_id: number;
  name: string;
  submission_type: SubmissionType;
  /** The project of an approved-RIDs submission. */
  project_id: string | null;
  status: 'processing' | 'complete';
  /** Sandbox clock. */
  submitted_at: string;
  /** Simulated time of the submission: the window is judged by it. */
  submitted_sim_ms: number;
  /** Sandbox clock ms at which it is processed. */
  due_at: number;
  /** The file as submitted (the submitted-rids download). */
  file: string;
  submitted: number;
  /** Per target group, in order of first appearance; submitted counts from the start, the rest once complete. */
  target_groups: TargetGroupCounts[];
  expired_rids: string[];
  invalid_rids: string[];
  /** Approved-RIDs submissions: the project's other completes, reversed. */
  remaining_rids: string[];
}

interface ReconciliationSlice {
  requests: Record<string, ReconciliationRecord>;
  /** Simulated time of the last processed reconciliation that touched a target group. */
  last_reconciled_at: Record<string, string>;
}

const reconciliationSlice = (services: Pick<SandboxServices, 'store'>) =>
  services.store.slice<ReconciliationSlice>(SLICE, () => ({ requests: {}, last_reconciled_at: {} }));
const peekSlice = (services: Pick<SandboxServices, 'store'>): ReconciliationSlice =>
  (services.store.data.slices[SLICE] as ReconciliationSlice | undefined) ?? { requests: {}, last_reconciled_at: {} };

/** The account's reconciliation requests, in submission order (for the reconciliations-status report). */
export function reconciliationsOf(services: SandboxServices, accountId: number): ReconciliationRecord[] {
  settleDueReconciliations(services);
  return Object.values(peekSlice(services).requests)
    .filter((r) => r.account_id === accountId)
    .sort((a, b) => a.seq - b.seq);
}

/** When a complete became one (simulated time). */
export const completedAtMs = (session: SessionRecord): number => Date.parse(session.respondent_update_date);

interface Located {
  tg: TargetGroupRecord;
  session: SessionRecord;
}

/** Every session of the account's launched target groups, by RID (session id). */
function sessionsByRid(services: SandboxServices, accountId: number, projectId: string | null = null): Map<string, Located> {
  const index = new Map<string, Located>();
  for (const tg of Object.values(services.store.data.target_groups)) {
    if (tg.account_id !== accountId || (projectId !== null && tg.project_id !== projectId)) continue;
    for (const session of sessionsOf(services, tg.id)) index.set(session.session_id, { tg, session });
  }
  return index;
}

function countsOf(record: ReconciliationRecord, targetGroupId: string): TargetGroupCounts {
  let counts = record.target_groups.find((c) => c.target_group_id === targetGroupId);
  if (!counts) {
    counts = { target_group_id: targetGroupId, submitted: 0, expired: 0, invalid: 0, positive_reversed: 0, negative_reversed: 0 };
    record.target_groups.push(counts);
  }
  return counts;
}

/** Processes a due request: judges each row, reverses completes in the simulation. */
function processReconciliation(services: SandboxServices, record: ReconciliationRecord): void {
  const rows = readRows(record);
  const index = sessionsByRid(services, record.account_id, record.project_id);
  for (const counts of record.target_groups) Object.assign(counts, { expired: 0, invalid: 0, positive_reversed: 0, negative_reversed: 0 });
  const reversals: Array<{ target_group_id: string; session_id: string; status: 'Terminate' }> = [];
  const handled = new Set<string>();
  const judge = (row: ReconciliationRow): Located | null => {
    const found = index.get(row.rid);
    const line = row.code === undefined ? row.rid : `${row.rid},${row.code}`;
    if (!found || !RECONCILABLE.includes(found.tg.status) || found.session.status !== 'Complete' || handled.has(row.rid)) {
      record.invalid_rids.push(line);
      if (found) countsOf(record, found.tg.id).invalid++;
      return null;
    }
    handled.add(row.rid);
    if (!withinReconciliationWindow(completedAtMs(found.session), record.submitted_sim_ms)) {
      record.expired_rids.push(line);
      countsOf(record, found.tg.id).expired++;
      return null;
    }
    return found;
  };
  for (const row of rows) {
    const found = judge(row);
    if (!found) continue;
    if (record.submission_type === 'rejected_rids') {
      reversals.push({ target_group_id: found.tg.id, session_id: row.rid, status: 'Terminate' });
      countsOf(record, found.tg.id).negative_reversed++;
    } else countsOf(record, found.tg.id).positive_reversed++;
  }
  if (record.submission_type === 'approved_rids') {
    // Every other complete of the project that is still inside its window is reversed.
    for (const { tg, session } of index.values()) {
      if (handled.has(session.session_id) || session.status !== 'Complete' || !RECONCILABLE.includes(tg.status)) continue;
      if (!withinReconciliationWindow(completedAtMs(session), record.submitted_sim_ms)) continue;
      reversals.push({ target_group_id: tg.id, session_id: session.session_id, status: 'Terminate' });
      record.remaining_rids.push(session.session_id);
      countsOf(record, tg.id).negative_reversed++;
    }
  }
  changeSessionStatuses(services, reversals);
  const at = new Date(simulatedNow(services)).toISOString();
  const slice = reconciliationSlice(services);
  for (const counts of record.target_groups) if (counts.positive_reversed + counts.negative_reversed > 0) slice.last_reconciled_at[counts.target_group_id] = at;
  record.status = 'complete';
}

/** Processes every request whose due time passed on the sandbox clock; the simulation runs up to now first. */
export function settleDueReconciliations(services: SandboxServices): void {
  const slice = services.store.data.slices[SLICE] as ReconciliationSlice | undefined;
  if (!slice) return;
  const now = services.clock.now();
  const due = Object.values(slice.requests)
    .filter((r) => r.status === 'processing' && r.due_at <= now)
    .sort((a, b) => a.seq - b.seq);
  if (due.length === 0) return;
  advanceSimulation(services);
  for (const record of due) processReconciliation(services, record);
  services.commit();
}

function readRows(record: ReconciliationRecord): ReconciliationRow[] {
  const reading = readReconciliationFile(record.file, record.submission_type === 'rejected_rids');
  return 'rows' in reading ? reading.rows : [];
}

/** The file name, content type and rows of a submission; one 400 naming every problem. */
function readSubmission(ctx: RequestContext, withCodes: boolean, extra: InvalidParam[] = []): { name: string; rows: ReconciliationRow[] } {
  const problems = [...extra];
  const name = ctx.query.get('name');
  if (name === null || name.trim() === '') problems.push({ name: 'name', reason: 'is required (the name of the file)' });
  else if (name.length > 255) problems.push({ name: 'name', reason: 'must be at most 255 characters' });
  const type = (ctx.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!CSV_TYPES.includes(type)) problems.push({ name: 'Content-Type', reason: 'must be text/csv or application/csv' });
  let rows: ReconciliationRow[] = [];
  if (CSV_TYPES.includes(type)) {
    const reading = readReconciliationFile(ctx.text ?? '', withCodes);
    if ('problems' in reading) problems.push(...reading.problems);
    else rows = reading.rows;
  }
  if (problems.length > 0) throw badRequest('The reconciliation file is invalid; nothing was submitted.', problems);
  return { name: name!, rows };
}

function submit(ctx: RequestContext, type: SubmissionType, projectId: string | null, name: string, rows: ReconciliationRow[]): Reply {
  const account = ctx.account!;
  const now = ctx.clock.now();
  const record: ReconciliationRecord = {
    seq: ctx.store.nextSeq(),
    id: ctx.newId('reconciliation'),
    account_id: account.account_id,
    name,
    submission_type: type,
    project_id: projectId,
    status: 'processing',
    submitted_at: new Date(now).toISOString(),
    submitted_sim_ms: simulatedNow(ctx),
    due_at: now + ctx.faults().job_duration_ms,
    file: ctx.text ?? '',
    submitted: rows.length,
    target_groups: [],
    expired_rids: [],
    invalid_rids: [],
    remaining_rids: [],
  };
  const index = sessionsByRid(ctx, account.account_id, projectId);
  for (const row of rows) {
    const found = index.get(row.rid);
    if (found) countsOf(record, found.tg.id).submitted++;
  }
  reconciliationSlice(ctx).requests[record.id] = record;
  return { status: 202, body: { name, request_id: record.id } };
}

function postReconciliations(ctx: RequestContext): Reply {
  settleDueReconciliations(ctx);
  const { name, rows } = readSubmission(ctx, true);
  return submit(ctx, 'rejected_rids', null, name, rows);
}

function postReconciliationsCompletes(ctx: RequestContext): Reply {
  settleDueReconciliations(ctx);
  // The reference documents no 404 here: a project outside the account is a 400 naming it.
  const project = ctx.store.data.projects[ctx.params.project_id];
  const extra = !project || project.account_id !== ctx.account!.account_id ? [{ name: 'project_id', reason: 'is not a project of the account' }] : [];
  const { name, rows } = readSubmission(ctx, false, extra);
  return submit(ctx, 'approved_rids', project!.id, name, rows);
}

function requireReconciliation(ctx: RequestContext): ReconciliationRecord {
  settleDueReconciliations(ctx);
  const record = peekSlice(ctx).requests[ctx.params.request_id];
  if (!record || record.account_id !== ctx.account!.account_id) throw notFound(`Reconciliation request ${ctx.params.request_id} not found.`);
  return record;
}

const sum = (record: ReconciliationRecord, key: keyof Omit<TargetGroupCounts, 'target_group_id'>) => record.target_groups.reduce((n, c) => n + c[key], 0);
const invalidTotal = (record: ReconciliationRecord) => record.invalid_rids.length;

function renderReconciliation(record: ReconciliationRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { request_id: record.id, name: record.name, status: record.status, submitted_at: record.submitted_at, submitted_count: record.submitted };
  if (record.status === 'complete') {
    Object.assign(out, { expired_count: record.expired_rids.length, invalid_count: invalidTotal(record), positive_reversed_count: sum(record, 'positive_reversed'), negative_reversed_count: sum(record, 'negative_reversed') });
  }
  out.submission_type = record.submission_type;
  return out;
}

function renderListItem(record: ReconciliationRecord): Record<string, unknown> {
  const counts: Record<string, number> = { submitted: record.submitted };
  if (record.status === 'complete') {
    const positive = sum(record, 'positive_reversed');
    const negative = sum(record, 'negative_reversed');
    Object.assign(counts, { expired: record.expired_rids.length, invalid: invalidTotal(record), total_reversed: positive + negative, positive_reversed: positive, negative_reversed: negative });
  }
  return { id: record.id, name: record.name, submitted_at: record.submitted_at, status: record.status, result_counts: counts, submission_type: record.submission_type };
}

function renderTargetGroupCounts(record: ReconciliationRecord, counts: TargetGroupCounts): Record<string, unknown> {
  const out: Record<string, unknown> = { target_group_id: counts.target_group_id, status: record.status, submitted_count: counts.submitted };
  if (record.status === 'complete') {
    Object.assign(out, { expired_count: counts.expired, invalid_count: counts.invalid, positive_reversed_count: counts.positive_reversed, negative_reversed_count: counts.negative_reversed });
  }
  return out;
}

/**
 * A page of `items` (in their order): after `start_after` (or the `next_cursor` parameter), or the page before
 * `end_before`. Cursors are opaque encodings of a position in the list.
 */
export function pageOf<T>(items: readonly T[], query: URLSearchParams, options = REFERENCE_PAGE): { data: T[]; next_cursor: string | null; has_more: boolean; page_size: number } {
  const cursorAt = (name: string, cursor: string | null): number | null => {
    if (cursor === null) return null;
    try {
      return parsePageRequest(new URLSearchParams({ start_after: cursor }), options).afterSeq;
    } catch {
      throw badRequest('Invalid pagination parameters.', [{ name, reason: 'is not a cursor returned by this list' }]);
    }
  };
  const { pageSize } = parsePageRequest(new URLSearchParams(query.has('page_size') ? { page_size: query.get('page_size')! } : {}), options);
  const before = cursorAt('end_before', query.get('end_before'));
  const after = cursorAt(query.has('start_after') ? 'start_after' : 'next_cursor', query.get('start_after') ?? query.get('next_cursor')) ?? 0;
  const start = before !== null ? Math.max(0, before - pageSize) : after;
  const end = before !== null ? before : start + pageSize;
  const data = items.slice(start, end);
  const has_more = start + data.length < items.length;
  return { data, next_cursor: has_more ? encodeCursor(start + data.length) : null, has_more, page_size: pageSize };
}

function listReconciliations(ctx: RequestContext): Reply {
  const problems: InvalidParam[] = [];
  const status = ctx.query.get('status');
  if (status !== null && status !== 'complete' && status !== 'processing') problems.push({ name: 'status', reason: 'must be complete or processing' });
  if (problems.length > 0) throw badRequest('The request is invalid.', problems);
  const name = ctx.query.get('name');
  // The sandbox records no submitting user (tokens name a client, not a user): a user filter matches nothing.
  const byUser = ctx.query.get('submitted_by_user_id');
  const items = reconciliationsOf(ctx, ctx.account!.account_id).filter((r) => (name === null || r.name === name) && (status === null || r.status === status) && byUser === null);
  const page = pageOf(items, ctx.query);
  return ok({ reconciliation_requests: page.data.map(renderListItem), next_cursor: page.next_cursor, page_size: page.page_size });
}

function targetGroupsOfRequest(ctx: RequestContext): Reply {
  const record = requireReconciliation(ctx);
  const page = pageOf(record.target_groups, ctx.query);
  return ok({ target_groups: page.data.map((c) => renderTargetGroupCounts(record, c)), next_cursor: page.next_cursor, page_size: page.page_size });
}

function targetGroupOfRequest(ctx: RequestContext): Reply {
  const record = requireReconciliation(ctx);
  const counts = record.target_groups.find((c) => c.target_group_id === ctx.params.target_group_id);
  if (!counts) throw notFound(`Target group ${ctx.params.target_group_id} is not part of reconciliation request ${record.id}.`);
  return ok(renderTargetGroupCounts(record, counts));
}

const csvText = (lines: readonly string[]): Reply => ({ status: 200, text: { contentType: 'text/csv; charset=utf-8', content: lines.map((l) => `${l}\r\n`).join('') } });

function download(ctx: RequestContext): Reply {
  const type = ctx.params.download_type;
  if (!(DOWNLOAD_TYPES as readonly string[]).includes(type)) {
    throw badRequest('Unknown download type.', [{ name: 'download_type', reason: `must be one of ${DOWNLOAD_TYPES.join(', ')}` }]);
  }
  const record = requireReconciliation(ctx);
  if (type === 'submitted-rids') return { status: 200, text: { contentType: 'text/csv; charset=utf-8', content: record.file } };
  if (type === 'remaining-project-completes' && record.submission_type !== 'approved_rids') {
    throw notFound('remaining-project-completes is generated for approved_rids submissions only.');
  }
  if (record.status !== 'complete') throw badRequest(`The ${type} file is available once the submission has completed processing.`, [{ name: 'download_type', reason: 'not available while processing' }]);
  if (type === 'expired-rids') return csvText(record.expired_rids);
  if (type === 'invalid-rids') return csvText(record.invalid_rids);
  return csvText(record.remaining_rids);
}

/** A complete still inside its window at `nowMs` whose window ends within `[from, to)`. */
const eligibleIn = (session: SessionRecord, nowMs: number, [from, to]: [number, number]): boolean => {
  if (session.status !== 'Complete') return false;
  const deadline = reconciliationDeadlineMs(completedAtMs(session));
  return deadline > nowMs && deadline >= from && deadline < to;
};

function eligibleTargetGroups(ctx: RequestContext): Reply {
  const problems: InvalidParam[] = [];
  const due = ctx.query.get('due_month') ?? 'current_month';
  if (due !== 'current_month' && due !== 'next_month') problems.push({ name: 'due_month', reason: 'must be current_month or next_month' });
  if (problems.length > 0) throw badRequest('The request is invalid.', problems);
  settleDueReconciliations(ctx);
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  const now = simulatedNow(ctx);
  const range = dueMonthRange(now, due as 'current_month' | 'next_month');
  const q = (name: string) => ctx.query.get(name);
  const last = peekSlice(ctx).last_reconciled_at;
  const items: Array<Record<string, unknown>> = [];
  let totalCompletes = 0;
  let totalMinor = 0;
  const groups = Object.values(ctx.store.data.target_groups)
    .filter((tg) => tg.account_id === ctx.account!.account_id && RECONCILABLE.includes(tg.status))
    .sort((a, b) => a.seq - b.seq);
  for (const tg of groups) {
    const project = ctx.store.data.projects[tg.project_id];
    if ((q('name') !== null && tg.name !== q('name')) || (q('status') !== null && tg.status !== q('status'))) continue;
    if ((q('project_name') !== null && project?.name !== q('project_name')) || (q('project_manager_id') !== null && tg.project_manager_id !== q('project_manager_id'))) continue;
    const eligible = sessionsOf(ctx, tg.id).filter((s) => eligibleIn(s, now, range));
    if (eligible.length === 0) continue;
    const minor = eligible.reduce((n, s) => n + (s.cost_per_interview ? toMinorUnits(Number(s.cost_per_interview.value)) : 0), 0);
    totalCompletes += eligible.length;
    totalMinor += minor;
    const item: Record<string, unknown> = {
      name: tg.name ?? '',
      target_group_id: tg.id,
      project_id: tg.project_id,
      project_manager: { id: tg.project_manager_id },
      status: tg.status,
      project_name: project?.name ?? '',
    };
    if (last[tg.id]) item.last_reconciliation_date = last[tg.id];
    Object.assign(item, { eligible_completes: String(eligible.length), monetary_amount: moneyFromMinorUnits(minor) });
    items.push(item);
  }
  const page = pageOf(items, ctx.query);
  const body: Record<string, unknown> = {
    target_groups: page.data,
    url: ctx.path,
    summary: { monetary_amount: moneyFromMinorUnits(totalMinor), completes: String(totalCompletes), target_group_count: String(items.length) },
    has_more: page.has_more,
  };
  if (page.next_cursor !== null) body.next_cursor = page.next_cursor;
  body.page_size = page.page_size;
  return ok(body);
}

/** Admin: the RIDs (session ids) of a target group with their status; completes with when they completed and their window. */
function adminRids(ctx: RequestContext): Reply {
  const tg = ctx.store.data.target_groups[ctx.params.target_group_id];
  if (!tg) throw notFound(`Target group ${ctx.params.target_group_id} not found.`);
  settleDueReconciliations(ctx);
  const status = ctx.query.get('status');
  const data = sessionsOf(ctx, tg.id)
    .filter((s) => status === null || s.status === status)
    .map((s) => {
      const out: Record<string, unknown> = { rid: s.session_id, project_id: s.project_id, target_group_id: s.target_group_id, status: s.status };
      if (s.status === 'Complete') Object.assign(out, { completed_at: s.respondent_update_date, reconcile_until: new Date(reconciliationDeadlineMs(completedAtMs(s)) - 1).toISOString() });
      return out;
    });
  return ok({ data });
}

export const reconciliationsRoutes: RouteModule = {
  name: 'reconciliations',
  routes: [
    { method: 'GET', path: RECONCILIATIONS, handler: listReconciliations },
    { method: 'POST', path: RECONCILIATIONS, body: 'text', idempotent: true, handler: postReconciliations },
    { method: 'GET', path: `${RECONCILIATIONS}/reason-codes`, handler: () => ok({ reconciliation_reasons: REASON_CODES.map((r) => ({ ...r })) }) },
    { method: 'GET', path: `${RECONCILIATIONS}/eligible-target-groups`, handler: eligibleTargetGroups },
    { method: 'GET', path: REQUEST, handler: (ctx) => ok(renderReconciliation(requireReconciliation(ctx))) },
    { method: 'GET', path: `${REQUEST}/target-groups`, handler: targetGroupsOfRequest },
    { method: 'GET', path: `${REQUEST}/target-groups/{target_group_id}`, handler: targetGroupOfRequest },
    { method: 'GET', path: `${REQUEST}/downloads/{download_type}`, handler: download },
    { method: 'POST', path: `${PROJECT}/reconciliations/completes`, body: 'text', idempotent: true, handler: postReconciliationsCompletes },
    { method: 'GET', path: '/_sandbox/fielding/target-groups/{target_group_id}/rids', handler: adminRids },
  ],
  init(services) {
    return services.ticks.register('reconciliations', TICK_MS, () => settleDueReconciliations(services));
  },
};
