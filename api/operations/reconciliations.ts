// Reconciliations (the close-out, issue 36): the reason codes, the target groups with completes still to
// reconcile, the account's submissions (looked up by file name before a post, so a chunk is submitted once),
// submitting a file of `RID,reason code` rows (or a project's approved completes), a submission's status and
// counts, its target groups, and its CSV downloads. Files travel streamed both ways (api/operations/csv-stream.ts).
import type { Readable } from 'node:stream';
import { ambiguousNaturalKeyFailure, invalidInputFailure } from '../http/errors';
import { readAnswer } from '../wire/read-answer';
import {
  LIST_ELIGIBLE_TARGET_GROUPS,
  LIST_RECONCILIATION_TARGET_GROUPS,
  LIST_RECONCILIATIONS,
  MAX_RECONCILIATION_FILE_ROWS,
  ReasonCodesAnswer,
  ReconciliationAnswer,
  ReconciliationTargetGroup,
  SubmitReconciliationsAnswer,
  type DueMonth,
  type EligibleTargetGroupItem,
  type ReconciliationDownloadType,
  type ReconciliationListItem,
} from '../wire/reconciliations';
import { accountPath, projectPath, seg, type ApiCaller } from './caller';
import { csvRequestBody, type CsvFile } from './csv-stream';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages, walkPages } from './pagination';

const reconciliationsPath = (caller: ApiCaller) => `${accountPath(caller)}/reconciliations`;

/** The reference's IdempotencyKeyUUID: a UUID (v4 advised). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** FileName: at most 255 characters. */
const MAX_FILE_NAME = 255;

/** A reason code as the planning core reads it (plan/closeout-types.ts ObservedReasonCode). */
export interface ReasonCode {
  code: string;
  description: string;
  allowed: boolean;
}

/** A submission as the planning core reads it (plan/closeout-types.ts ObservedSubmission): counts only, no RIDs. */
export interface SubmissionObservation {
  name: string;
  requestId: string;
  /** The exchange's status, as it gives it (`processing`, `complete`). */
  status: string;
  /** The exchange finished processing the file. */
  done: boolean;
  /** Reversed (positively and negatively), expired and invalid RIDs; absent while the answer does not give all three. */
  counts?: { reversed: number; expired: number; invalid: number };
}

/** request_reconciliation_reason_codes `GET P/reconciliations/reason-codes`: every code, `description` falling back to its name. */
export async function reconciliationReasonCodes(caller: ApiCaller): Promise<ReasonCode[]> {
  const req = { method: 'GET', path: `${reconciliationsPath(caller)}/reason-codes` } as const;
  const body = readAnswer({ operation: 'request_reconciliation_reason_codes', ...req }, ReasonCodesAnswer, await caller.send(req));
  return body.reconciliation_reasons.map((r) => ({ code: r.code, description: r.description ?? r.name ?? '', allowed: r.allowed }));
}

export interface EligibleTargetGroupsQuery {
  /** The month whose completes' windows close (`current_month`, the reference's default, or `next_month`). */
  dueMonth?: DueMonth;
  /** Filters the reference offers: target group name and status, project name, project manager id. */
  name?: string;
  status?: string;
  projectName?: string;
  projectManagerId?: string;
  pageSize?: number;
}

/** get_eligible_target_groups `GET P/reconciliations/eligible-target-groups`: every page. */
export async function eligibleTargetGroups(caller: ApiCaller, query: EligibleTargetGroupsQuery = {}): Promise<EligibleTargetGroupItem[]> {
  const req = {
    method: 'GET',
    path: `${reconciliationsPath(caller)}/eligible-target-groups`,
    query: { due_month: query.dueMonth, name: query.name, status: query.status, project_name: query.projectName, project_manager_id: query.projectManagerId },
  } as const;
  return listAllPages(caller, req, LIST_ELIGIBLE_TARGET_GROUPS, query.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
}

/**
 * get_reconciliations_by_account_id `GET P/reconciliations?name=…`: the account's submissions of a file name, every
 * page; only exact matches are kept (the filter is the API's, the match is ours). With `prefix`, the submissions whose
 * names start with `name` (e.g. every one of a study): the list is read without a name filter (the reference's
 * `name` names one file) and matched here.
 */
export async function reconciliationsNamed(caller: ApiCaller, input: { name: string; prefix?: boolean; pageSize?: number }): Promise<ReconciliationListItem[]> {
  checkFileName('reconciliationsNamed', input.name);
  const found: ReconciliationListItem[] = [];
  const matches = input.prefix ? (item: ReconciliationListItem) => item.name.startsWith(input.name) : (item: ReconciliationListItem) => item.name === input.name;
  const req = { method: 'GET', path: reconciliationsPath(caller), query: input.prefix ? {} : { name: input.name } } as const;
  await walkPages(caller, req, LIST_RECONCILIATIONS, {
    pageSize: input.pageSize ?? DEFAULT_LIST_PAGE_SIZE,
    onPage: (items) => found.push(...items.filter(matches)),
  });
  return found;
}

/**
 * The submission of a file name, looked up before it is posted (a chunk's name is derived from its content, so
 * one found means it was submitted): undefined when there is none; two are `ambiguous_natural_key`.
 */
export async function findSubmissionByName(caller: ApiCaller, input: { name: string; pageSize?: number }): Promise<SubmissionObservation | undefined> {
  const found = await reconciliationsNamed(caller, input);
  if (found.length > 1) throw ambiguousNaturalKeyFailure(`reconciliation submission named ${input.name}`, found.map((f) => f.id));
  return found.length === 1 ? submissionOfListItem(found[0]!) : undefined;
}

/** A file to submit, its name (the `name` query) and its Idempotency-Key (a UUID, the same on every retry). */
export interface ReconciliationUpload {
  name: string;
  idempotencyKey: string;
  file: CsvFile;
}

/**
 * post_reconciliations `POST P/reconciliations?name=…`: `RID,reason code` rows, no header, at most 100,000 (the
 * caller chunks); 202 -> the request id. Retried with the same Idempotency-Key, the exchange deduplicates it.
 */
export async function submitReconciliations(caller: ApiCaller, input: ReconciliationUpload): Promise<string> {
  const path = reconciliationsPath(caller);
  return submitFile(caller, 'post_reconciliations', 'submitReconciliations', path, input, (row) =>
    /^[^,\s]+,[^,\s]+$/.test(row.trim()) ? undefined : 'is not "RID,reason code"',
  );
}

/**
 * post_reconciliations_completes `POST P/projects/{project_id}/reconciliations/completes?name=…`: the project's
 * completes to keep, one RID a line; 202 -> the request id.
 */
export async function submitApprovedCompletes(caller: ApiCaller, input: ReconciliationUpload & { projectId: string }): Promise<string> {
  const path = `${projectPath(caller, input.projectId)}/reconciliations/completes`;
  return submitFile(caller, 'post_reconciliations_completes', 'submitApprovedCompletes', path, input, (row) =>
    /^[^,\s]+$/.test(row.trim()) ? undefined : 'is not one RID',
  );
}

async function submitFile(
  caller: ApiCaller,
  operation: string,
  activity: string,
  path: string,
  input: ReconciliationUpload,
  checkRow: (row: string) => string | undefined,
): Promise<string> {
  checkFileName(activity, input.name);
  if (!UUID.test(input.idempotencyKey)) throw invalidInputFailure(activity, 'idempotencyKey is not a UUID (the reference\'s IdempotencyKeyUUID)');
  const stream = csvRequestBody(input.file, { activity, maxRows: MAX_RECONCILIATION_FILE_ROWS, checkRow });
  const req = { method: 'POST', path, query: { name: input.name }, stream, idempotencyKey: input.idempotencyKey } as const;
  return readAnswer({ operation, method: req.method, path }, SubmitReconciliationsAnswer, await caller.send(req)).request_id;
}

function checkFileName(activity: string, name: string): void {
  if (name.trim() === '' || name.length > MAX_FILE_NAME || /[\r\n]/.test(name)) {
    throw invalidInputFailure(activity, `the file name must be 1–${MAX_FILE_NAME} characters on one line`);
  }
}

/** get_reconciliation_by_request_id `GET P/reconciliations/{request_id}`. */
export async function getReconciliation(caller: ApiCaller, input: { requestId: string }): Promise<ReconciliationAnswer> {
  const req = { method: 'GET', path: `${reconciliationsPath(caller)}/${seg(input.requestId)}` } as const;
  return readAnswer({ operation: 'get_reconciliation_by_request_id', ...req }, ReconciliationAnswer, await caller.send(req));
}

/** A submission by its request id, as the planning core reads it. */
export async function observeSubmission(caller: ApiCaller, input: { requestId: string }): Promise<SubmissionObservation> {
  return submissionOf(await getReconciliation(caller, input));
}

/**
 * The wire's Reconciliation as the planning core reads it: done once `complete`; reversed = positive + negative;
 * counts only when the answer gives every one of them. The name is the answer's (empty when it gives none).
 */
export function submissionOf(answer: ReconciliationAnswer): SubmissionObservation {
  const out: SubmissionObservation = { name: answer.name ?? '', requestId: answer.request_id, status: answer.status, done: answer.status === 'complete' };
  const { positive_reversed_count: positive, negative_reversed_count: negative, expired_count: expired, invalid_count: invalid } = answer;
  if (positive !== undefined && negative !== undefined && expired !== undefined && invalid !== undefined) {
    out.counts = { reversed: positive + negative, expired, invalid };
  }
  return out;
}

/** An item of the account's submissions as the planning core reads it (its `result_counts`; `total_reversed`, else positive + negative). */
export function submissionOfListItem(item: ReconciliationListItem): SubmissionObservation {
  const out: SubmissionObservation = { name: item.name, requestId: item.id, status: item.status, done: item.status === 'complete' };
  const c = item.result_counts;
  const reversed = c?.total_reversed ?? (c?.positive_reversed !== undefined && c.negative_reversed !== undefined ? c.positive_reversed + c.negative_reversed : undefined);
  if (reversed !== undefined && c?.expired !== undefined && c.invalid !== undefined) out.counts = { reversed, expired: c.expired, invalid: c.invalid };
  return out;
}

/** get_target_groups_by_request_id `GET P/reconciliations/{request_id}/target-groups`: every page. */
export async function reconciliationTargetGroups(caller: ApiCaller, input: { requestId: string; pageSize?: number }): Promise<ReconciliationTargetGroup[]> {
  const req = { method: 'GET', path: `${reconciliationsPath(caller)}/${seg(input.requestId)}/target-groups` } as const;
  return listAllPages(caller, req, LIST_RECONCILIATION_TARGET_GROUPS, input.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
}

/** get_target_group_by_request_id_and_target_group_id `GET P/reconciliations/{request_id}/target-groups/{target_group_id}`. */
export async function reconciliationTargetGroup(caller: ApiCaller, input: { requestId: string; targetGroupId: string }): Promise<ReconciliationTargetGroup> {
  const req = { method: 'GET', path: `${reconciliationsPath(caller)}/${seg(input.requestId)}/target-groups/${seg(input.targetGroupId)}` } as const;
  return readAnswer({ operation: 'get_target_group_by_request_id_and_target_group_id', ...req }, ReconciliationTargetGroup, await caller.send(req));
}

/**
 * get_recon_downloads `GET P/reconciliations/{request_id}/downloads/{download_type}`: the CSV file as a Readable,
 * unread (the caller streams it to the blob store or reads it with csvRecords, and must consume or destroy it).
 */
export async function downloadReconciliationFile(caller: ApiCaller, input: { requestId: string; type: ReconciliationDownloadType }): Promise<Readable> {
  const req = {
    method: 'GET', path: `${reconciliationsPath(caller)}/${seg(input.requestId)}/downloads/${seg(input.type)}`, streamAnswer: true, accept: 'text/csv, application/json;q=0.5',
  } as const;
  const res = await caller.send<Readable>(req);
  return res.body;
}
