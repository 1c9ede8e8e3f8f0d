// The close-out's contract between its parts (issue 36): what the file asks (desired), what the exchange holds
// (observed, as counts: respondent IDs never leave the blob store, the client's plan and the activities that read
// it), and the typed steps apply runs. Pure types; the decisions are in plan/closeout.ts.
import type { Money } from '../shared/money';

/** The reversals of a study, as one normalized list in the blob store (sorted by RID, one `RID,code` per line, `\n`-terminated). */
export interface ReversalsRef {
  /** `sha256:<hex>`, the content address of the normalized list. */
  ref: string;
  /** Hex SHA-256 of the normalized list. */
  sha256: string;
  /** Rows (= distinct RIDs). */
  count: number;
  /** Rows per reason code. */
  byCode: Record<string, number>;
  /** The files it was read from, as the study names them (for display). */
  files: string[];
}

/** Opt-in `post_reconciliations_completes`: the listed RIDs stay completes, every other complete of the project is reversed. */
export interface DesiredApprovedCompletes {
  /** The list (RID per line), normalized like an ID list. */
  list: { ref: string; sha256: string; count: number; file: string };
  /** How many completes the file's author expects it to terminate. */
  expectTerminated: number;
  /** Allowed deviation from expectTerminated, in completes (the file may give a percentage; it is resolved here). */
  tolerance: number;
}

export { CLOSEOUT_REPORT_TYPES, type CloseoutReportType } from '../shared/closeout-reports';
import type { CloseoutReportType } from '../shared/closeout-reports';

/** `closeout:` of a study, as apply takes it. */
export interface DesiredCloseout {
  reversals?: ReversalsRef;
  approvedCompletes?: DesiredApprovedCompletes;
  /** Reports to generate and archive once the reversals are done. */
  reports: CloseoutReportType[];
  /** Notify `closeout_deadline` this many ms before a window closes (default 3 days). */
  deadlineWarningMs: number;
}

/** A reason code as the exchange lists it (request_reconciliation_reason_codes). */
export interface ObservedReasonCode {
  code: string;
  description: string;
  allowed: boolean;
}

/** Where the file's RIDs stand, counted per target group and code (plan/closeout.ts `classifyReversals`). */
export interface ReversalClassification {
  /** Per target group id (the exchange's): per code, the RIDs to submit now and those an earlier submission of this study already holds. */
  byTargetGroup: Record<string, { byCode: Record<string, { toSubmit: number; submitted: number }>; windowClosesAt: string }>;
  /** RIDs the exchange does not list as this account's eligible completes (not a complete, another account's, already reversed). */
  notEligible: number;
  /** RIDs whose window closed before they were submitted. Per target group id. */
  windowClosed: Record<string, number>;
  /** When the earliest of those windows closed, per target group id (the same keys as windowClosed). */
  windowClosedAt: Record<string, string>;
  /**
   * RIDs an earlier submission of this study holds that the exchange no longer lists as eligible (it reversed them):
   * submitted, but under no target group.
   */
  submittedUnlisted: number;
}

/** One earlier submission of this study (get_reconciliations_by_account_id, by its name). */
export interface ObservedSubmission {
  name: string;
  requestId: string;
  /** The exchange's status of the request, as it gives it. */
  status: string;
  done: boolean;
  counts?: { reversed: number; expired: number; invalid: number };
}

/** What plan/closeout.ts needs to know of the exchange, IDs left out. */
export interface ObservedCloseout {
  reasonCodes: ObservedReasonCode[];
  classification: ReversalClassification;
  /** Completes the approved-completes list would terminate (absent: not asked). */
  approvedCompletesWouldTerminate?: number;
  /** CPI and status per target group id, and the key the study gives it. */
  targetGroups: Record<string, { key: string; status: string; cpi?: Money }>;
  submissions: ObservedSubmission[];
  /** Reports already archived for this revision of the close-out, by type. */
  archivedReports: CloseoutReportType[];
  /**
   * The RIDs to submit now (the normalized list's rows classified `toSubmit`, in its order), as the caller that holds
   * the rows digests them: hex SHA-256 of their `rid,code\n` lines and their count. The submissions are named by it
   * (plan/closeout.ts `reversalChunks`). Needed when any RID is to be submitted.
   */
  delta?: { sha256: string; count: number };
  /** The study's project id in the exchange (post_reconciliations_completes names it); absent before it exists. */
  projectId?: string;
}

/** A chunk of the reversals to submit: rows [from, to) of the delta, in the normalized list's order. */
export interface SubmitReversalsStep {
  kind: 'submit_reversals';
  /** `<study>-<content hash of the delta>-<n>`: looked up before posting, so it is submitted once. */
  name: string;
  /** A UUID derived from the name (the reference's IdempotencyKeyUUID). */
  idempotencyKey: string;
  /** 0-based index of the chunk; the name's `<n>` is chunk + 1. */
  chunk: number;
  /** Rows of a full chunk (100,000): the chunk is rows [chunk × rowsPerChunk, + rows) of the delta. */
  rowsPerChunk: number;
  /** The first row of the chunk in the delta, 0-based (chunk × rowsPerChunk). */
  from: number;
  rows: number;
}

export interface SubmitApprovedCompletesStep {
  kind: 'submit_approved_completes';
  name: string;
  idempotencyKey: string;
  projectId: string;
  terminates: number;
}

export interface ArchiveReportStep {
  kind: 'archive_report';
  report: CloseoutReportType;
}

export type CloseoutStep = SubmitReversalsStep | SubmitApprovedCompletesStep | ArchiveReportStep;

/** Why a close-out cannot be applied; each blocks the whole close-out (nothing is submitted). */
export type CloseoutBlock =
  | { kind: 'unknown_reason_code'; code: string; rows: number }
  | { kind: 'reason_code_not_allowed'; code: string; rows: number }
  | { kind: 'window_closed'; targetGroupId: string; key: string; rows: number; closedAt: string }
  | { kind: 'approved_completes_out_of_tolerance'; expected: number; tolerance: number; wouldTerminate: number };

/** The plan of a close-out, per target group and as steps. */
export interface CloseoutPlan {
  perTargetGroup: {
    targetGroupId: string;
    key: string;
    byCode: Record<string, { toSubmit: number; submitted: number }>;
    /** Completes × CPI of the RIDs to submit, in the target group's currency; absent when the CPI is unknown. */
    reverses?: Money;
    windowClosesAt: string;
    /** Whole days left before the window closes (0 on its last day, negative past it). */
    daysLeft: number;
    /** When `closeout_deadline` is due: deadlineWarningMs before windowClosesAt. */
    deadlineWarningAt: string;
  }[];
  notEligible: number;
  steps: CloseoutStep[];
  /** Reports not archived yet that wait for the reversals: a block, a submission to make, or one still processing. */
  reportsWaiting: CloseoutReportType[];
  blocks: CloseoutBlock[];
  /** Reversals cannot be undone: any submit step needs an approval before apply runs it. */
  needsApproval: boolean;
}
