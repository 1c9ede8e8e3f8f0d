// The reports a study's close-out can generate and archive (issue 36): the study format's `closeout.reports` and the
// plan's archive_report steps name them alike. Pure; imports nothing.

/** Report types a close-out archives, in the exchange's words. */
export const CLOSEOUT_REPORT_TYPES = ['completes', 'reconciliation-eligible-rids', 'reconciliations-status', 'respondent-analysis'] as const;
export type CloseoutReportType = (typeof CLOSEOUT_REPORT_TYPES)[number];

/** Rows one reconciliation submission takes (the reference: "The file can contain up to 100,000 rows"); more are chunked. */
export const MAX_ROWS_PER_SUBMISSION = 100_000;
/** Distinct RIDs the reversal files of one study may hold together (ten submissions); more is SF6016. The stores that keep them take as many. */
export const MAX_REVERSAL_ROWS = 1_000_000;
