// Reconciliations on the wire (the close-out, issue 36), written from the reference's Reconciliations tag:
// the reason codes, the account's submissions (ReconciliationsFiles), one submission (Reconciliation) and its
// target groups (ReconciliationsTargetGroup), the target groups with eligible completes
// (ReconciliationsEligibleTargetGroupsResponse), and the 202 of a submitted file (SubmitReconciliationsResponse).
// The files themselves travel as text/csv (no header row; `RID,reason code` or `RID` a line) and the downloads
// answer text/csv: neither has a JSON schema. The reference marks no field of these answers required; the
// schemas require what studyflow reads to decide (an id, a name, a status, a code's `allowed`).
import { z } from 'zod';
import { WireMoney } from './feasibility';
import { ResourceId } from './common';
import type { ListWire } from './lists';

const Count = z.number().int().min(0);

/** ReconciliationReasonCodes: `code` is a string (`'11'`), `allowed` false once a code is phased out. */
export const ReasonCodeItem = z.looseObject({
  code: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  allowed: z.boolean(),
});
export type ReasonCodeItem = z.infer<typeof ReasonCodeItem>;

/** ReconciliationReasonCodesResponse `{reconciliation_reasons}`. */
export const ReasonCodesAnswer = z.looseObject({ reconciliation_reasons: z.array(ReasonCodeItem) });

/** The status of a submission and of its target groups: `complete` or `processing`. */
export const ReconciliationStatus = z.enum(['complete', 'processing']);

/** ReconciliationRequestSubmittedCount (none of its fields required). */
export const ReconciliationResultCounts = z.looseObject({
  submitted: Count.optional(),
  expired: Count.optional(),
  invalid: Count.optional(),
  total_reversed: Count.optional(),
  positive_reversed: Count.optional(),
  negative_reversed: Count.optional(),
});

/** ReconciliationRequests: one submitted file of the account's list. */
export const ReconciliationListItem = z.looseObject({
  id: ResourceId,
  name: z.string(),
  submitted_at: z.string().optional(),
  status: ReconciliationStatus,
  submitted_by_user_id: z.string().optional(),
  result_counts: ReconciliationResultCounts.optional(),
  submission_type: z.enum(['approved_rids', 'rejected_rids']).optional(),
});
export type ReconciliationListItem = z.infer<typeof ReconciliationListItem>;

/** The counts of a submission or of one of its target groups (Reconciliation, ReconciliationsTargetGroup). */
const ReconciliationCounts = {
  submitted_count: Count.optional(),
  expired_count: Count.optional(),
  invalid_count: Count.optional(),
  positive_reversed_count: Count.optional(),
  negative_reversed_count: Count.optional(),
};

/** Reconciliation (RequestReconciliationByID): a submission by its request id. */
export const ReconciliationAnswer = z.looseObject({
  request_id: ResourceId,
  name: z.string().optional(),
  status: ReconciliationStatus,
  submitted_at: z.string().optional(),
  submitter_las_id: z.string().optional(),
  ...ReconciliationCounts,
});
export type ReconciliationAnswer = z.infer<typeof ReconciliationAnswer>;

/** ReconciliationsTargetGroup (an item of RequestReconciliationsTargetGroups, and RequestReconciliationsTargetGroup). */
export const ReconciliationTargetGroup = z.looseObject({
  target_group_id: ResourceId,
  status: ReconciliationStatus,
  ...ReconciliationCounts,
});
export type ReconciliationTargetGroup = z.infer<typeof ReconciliationTargetGroup>;

/** ReconciliationsEligibleTargetGroups: a target group with completes that can still be reconciled. */
export const EligibleTargetGroupItem = z.looseObject({
  target_group_id: z.string().min(1),
  name: z.string().optional(),
  project_id: z.string().optional(),
  project_name: z.string().optional(),
  project_manager: z.looseObject({ id: z.string().optional(), name: z.string().optional(), email: z.string().optional() }).optional(),
  status: z.string().optional(),
  last_reconciliation_date: z.string().optional(),
  /** A count, as a string (`'100'`; the reference types it string without a pattern). */
  eligible_completes: z.string().optional(),
  monetary_amount: WireMoney.optional(),
});
export type EligibleTargetGroupItem = z.infer<typeof EligibleTargetGroupItem>;

/** SubmitReconciliationsResponse, the 202 of post_reconciliations and post_reconciliations_completes. */
export const SubmitReconciliationsAnswer = z.looseObject({ name: z.string().optional(), request_id: ResourceId });

/** The due month of the eligible target groups (DueMonth): the reference's default is `current_month`. */
export const DUE_MONTHS = ['current_month', 'next_month'] as const;
export type DueMonth = (typeof DUE_MONTHS)[number];

/** ReconciliationDownloadType: the CSV files of a submission. */
export const RECONCILIATION_DOWNLOAD_TYPES = ['submitted-rids', 'expired-rids', 'invalid-rids', 'remaining-project-completes'] as const;
export type ReconciliationDownloadType = (typeof RECONCILIATION_DOWNLOAD_TYPES)[number];

/** The most rows a submitted file may hold (post_reconciliations, post_reconciliations_completes). */
export const MAX_RECONCILIATION_FILE_ROWS = 100_000;

/** get_reconciliations_by_account_id: `{reconciliation_requests, next_cursor, page_size}`, no `has_more`. */
export const LIST_RECONCILIATIONS: ListWire<ReconciliationListItem> = {
  operation: 'get_reconciliations_by_account_id', items: 'reconciliation_requests', item: ReconciliationListItem, cursor: 'next_cursor', maxPageSize: 100,
};
/** get_target_groups_by_request_id: `{target_groups, next_cursor, page_size}`, no `has_more`. */
export const LIST_RECONCILIATION_TARGET_GROUPS: ListWire<ReconciliationTargetGroup> = {
  operation: 'get_target_groups_by_request_id', items: 'target_groups', item: ReconciliationTargetGroup, cursor: 'next_cursor', maxPageSize: 100,
};
/** get_eligible_target_groups: `{target_groups, url, summary, has_more, next_cursor, page_size}`. */
export const LIST_ELIGIBLE_TARGET_GROUPS: ListWire<EligibleTargetGroupItem> = {
  operation: 'get_eligible_target_groups', items: 'target_groups', item: EligibleTargetGroupItem, cursor: 'has_more+next_cursor', maxPageSize: 100,
};
