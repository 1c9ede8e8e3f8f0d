// Reconciliation (close-out) rules of the sandbox, pure: the reason codes, reading a submitted CSV file, and the
// reversal window. The reference (post_reconciliations, post_reconciliations_completes) states the file format
// (no header, `RID,reason code` or `RID` a line) and the 100,000-row limit; the window is the sandbox's:
// a complete from calendar month M (UTC) can be reconciled until the end of the 25th of month M+1.

/** The reference's ReconciliationReasonCodes item. */
export interface ReasonCode {
  code: string;
  name: string;
  description: string;
  /** False once a code is phased out: a file using it is refused. */
  allowed: boolean;
}

/** The sandbox's reason codes: every one reverses a complete (a negative reconciliation). */
export const REASON_CODES: readonly ReasonCode[] = Object.freeze([
  // The reference's own examples reverse under 11 and 932 (post_reconciliations' CSV example).
  { code: '11', name: 'Speeding', description: 'The interview was completed too fast to be genuine.', allowed: true },
  { code: '932', name: 'Fraud', description: 'The respondent is fraudulent (a bot, a duplicate identity or a falsified profile).', allowed: true },
  { code: '21', name: 'Speeder', description: 'The respondent finished far faster than the interview length allows.', allowed: true },
  { code: '22', name: 'Straightliner', description: 'The respondent gave the same answer throughout grid questions.', allowed: true },
  { code: '23', name: 'Poor open ends', description: 'The open-ended answers were empty, off topic or nonsense.', allowed: true },
  { code: '24', name: 'Failed attention check', description: 'The respondent failed a trap or attention question.', allowed: true },
  { code: '25', name: 'Duplicate respondent', description: 'The respondent had already taken part in this study.', allowed: true },
  { code: '26', name: 'Profile mismatch', description: 'The answers contradict the profile the respondent qualified with.', allowed: true },
  { code: '29', name: 'Other quality issue', description: 'Phased out: name the quality issue with one of the other codes.', allowed: false },
]);

export const MAX_RECONCILIATION_ROWS = 100_000;
/** A RID as the sandbox issues them (its session ids) or as the reference shows them (UUIDs). */
const RID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Problems named in one answer, at most. */
const MAX_LINE_PROBLEMS = 50;

export interface ReconciliationRow {
  rid: string;
  /** Absent for the approved-RIDs file (one RID a line). */
  code?: string;
}

export type FileReading = { rows: ReconciliationRow[] } | { problems: Array<{ name: string; reason: string }> };

/**
 * The rows of a submitted file: lines end with LF or CRLF, a last empty line is allowed, nothing else may be
 * empty. `withCodes`: each line is `RID,code` (spaces around either allowed) with a code of REASON_CODES that is
 * still allowed; else each line is one RID. Problems name the line (`line 3`), at most MAX_LINE_PROBLEMS of them.
 */
export function readReconciliationFile(text: string, withCodes: boolean): FileReading {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return { problems: [{ name: 'body', reason: 'the file has no rows' }] };
  if (lines.length > MAX_RECONCILIATION_ROWS) {
    return { problems: [{ name: 'body', reason: `the file has ${lines.length} rows; at most ${MAX_RECONCILIATION_ROWS} are allowed` }] };
  }
  const rows: ReconciliationRow[] = [];
  const problems: Array<{ name: string; reason: string }> = [];
  const problem = (index: number, reason: string) => {
    if (problems.length < MAX_LINE_PROBLEMS) problems.push({ name: `line ${index + 1}`, reason });
  };
  lines.forEach((line, index) => {
    const fields = line.split(',').map((field) => field.trim());
    if (withCodes ? fields.length !== 2 : fields.length !== 1) {
      problem(index, withCodes ? 'must be RID,reason code' : 'must be one RID');
      return;
    }
    const [rid, code] = fields;
    if (!RID_PATTERN.test(rid)) {
      problem(index, 'the RID must be 1-64 letters, digits, - or _');
      return;
    }
    if (!withCodes) {
      rows.push({ rid });
      return;
    }
    const known = REASON_CODES.find((reason) => reason.code === code);
    if (!known) problem(index, `${JSON.stringify(code)} is not a reason code (see reconciliations/reason-codes)`);
    else if (!known.allowed) problem(index, `reason code ${code} is phased out (allowed: false)`);
    else rows.push({ rid, code });
  });
  return problems.length > 0 ? { problems } : { rows };
}

/** The first instant after the window of a complete at `completedAtMs`: the 26th of the next month, 00:00 UTC. */
export function reconciliationDeadlineMs(completedAtMs: number): number {
  const at = new Date(completedAtMs);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 26);
}

/** True while a complete at `completedAtMs` can still be reconciled at `nowMs`. */
export const withinReconciliationWindow = (completedAtMs: number, nowMs: number): boolean => nowMs < reconciliationDeadlineMs(completedAtMs);

/** The calendar month (UTC) of `nowMs`, or the one after it: `[first instant, first instant of the next)`. */
export function dueMonthRange(nowMs: number, dueMonth: 'current_month' | 'next_month'): [number, number] {
  const at = new Date(nowMs);
  const shift = dueMonth === 'next_month' ? 1 : 0;
  return [Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + shift, 1), Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + shift + 1, 1)];
}

/** One CSV line: fields with a comma, quote or line break are quoted. */
export function csvLine(fields: ReadonlyArray<string | number | null | undefined>): string {
  return fields
    .map((field) => {
      const text = field === null || field === undefined ? '' : String(field);
      return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',');
}
