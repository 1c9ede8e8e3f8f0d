// Reports on the wire (the close-out's archive and its eligible RIDs, issue 36), written from the reference's Reports
// tag: generate_report (ReportGenerationRequest -> 202 ReportGenerationResponse), report_status
// (ReportStatusResponse), report_requests (ReportRequestList), share_report (ReportShareResponse); the download
// (download_report_v2) answers the file itself (text/csv or a spreadsheet), not JSON.
//
// Where the reference contradicts itself, these schemas read what its own examples show: a report id is typed
// `format: uuid` with a ULID pattern and its examples carry both forms, so it is any non-empty string; a
// generation's `report_url` is required and a string, and its example (and description: "null while the report is
// pending") has null; report_status's enum is `completed`/`in_progress` and its examples say `COMPLETED` and
// `IN PROGRESS`, so the status is read case- and separator-blind into one of the reference's values.
import { z } from 'zod';
import type { ListWire } from './lists';

/** ReportType: the path parameter of generate_report and the `report_type` query of the lists and share. */
export const REPORT_TYPES = ['completes', 'reconciliations-status', 'reconciliation-eligible-rids', 'sample-bought', 'respondent-analysis', 'term-details'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** ReportGenerationRequest `filter`: the level of the ids (the reference's request has no `account` value; leave it out for the account). */
export const REPORT_FILTERS = ['business_unit', 'target_group', 'project'] as const;
export type ReportFilter = (typeof REPORT_FILTERS)[number];

/** A date as the report request takes it: `YYYY-MM-DD`. */
const ReportDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'is not a date (YYYY-MM-DD)');

/** ReportGenerationRequest (none of its fields required; `email_recipients` 1–5 user ids). */
export const ReportGenerationRequest = z.strictObject({
  filter: z.enum(REPORT_FILTERS).optional(),
  start_date: ReportDate.optional(),
  end_date: ReportDate.optional(),
  filter_ids: z.array(z.string().min(1)).optional(),
  report_options: z.strictObject({
    include_respondent_answers: z.boolean().nullable().optional(),
    link_type: z.number().int().nullable().optional(),
  }).nullable().optional(),
  email_recipients: z.array(z.string().min(1)).min(1).max(5).optional(),
});
export type ReportGenerationRequest = z.infer<typeof ReportGenerationRequest>;

const ReportId = z.string().min(1);

/** ReportGenerationResponse: `message`, `report_id`, `report_url` (null while pending), `status` (pending, emailed, failed). */
export const ReportGenerationAnswer = z.looseObject({
  message: z.string(),
  report_id: ReportId,
  report_url: z.string().nullable(),
  status: z.string().min(1),
  create_date: z.string().optional(),
  report_type: z.string().optional(),
  level: z.string().optional(),
});
export type ReportGenerationAnswer = z.infer<typeof ReportGenerationAnswer>;

/** A report's state as report_status gives it: the reference's `completed` and `in_progress`, and `failed`. */
export const REPORT_STATES = ['completed', 'in_progress', 'failed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

/** `COMPLETED`, `IN PROGRESS`, `in-progress` … -> the reference's lower-case, underscored value. */
const ReportStateText = z
  .string()
  .transform((s) => s.trim().toLowerCase().replace(/[\s-]+/g, '_'))
  .pipe(z.enum(REPORT_STATES));

/** ReportStatusResponse. */
export const ReportStatusAnswer = z.looseObject({
  report_id: ReportId.optional(),
  status: ReportStateText,
  message: z.string().optional(),
  start_date: z.string().optional(),
  end_date: z.string().optional(),
  report_url: z.string().nullable().optional(),
  data_analysis: z.boolean().optional(),
  survey_id: z.string().optional(),
  respondent_answer: z.boolean().optional(),
});
export type ReportStatusAnswer = z.infer<typeof ReportStatusAnswer>;

/** ReportRequestListItem (none of its fields required; studyflow needs the id). */
export const ReportRequestItem = z.looseObject({
  report_id: ReportId,
  report_type: z.string().optional(),
  status: z.enum(['pending', 'completed', 'failed']).optional(),
  level: z.enum(['Account', 'Project', 'Target Group', 'Business Unit']).optional(),
  account_name: z.string().optional(),
  create_date: z.string().optional(),
  report_url: z.string().nullable().optional(),
  create_params: z.looseObject({
    start_date: z.string().optional(),
    end_date: z.string().optional(),
    filter: z.string().optional(),
    filter_ids: z.array(z.string()).optional(),
  }).optional(),
  requestor: z.looseObject({ id: z.string().optional(), name: z.string().optional(), email: z.string().optional() }).optional(),
});
export type ReportRequestItem = z.infer<typeof ReportRequestItem>;

/** ReportShareResponse `{report_pre_signed_url}`. */
export const ReportShareAnswer = z.looseObject({ report_pre_signed_url: z.string().min(1) });

/** ReportRequestList `{reports_requests (required), next_cursor}`: `next_cursor` only, absent or null on the last page. */
export const LIST_REPORT_REQUESTS: ListWire<ReportRequestItem> = {
  operation: 'report_requests', items: 'reports_requests', item: ReportRequestItem, cursor: 'next_cursor', maxPageSize: 100,
};
