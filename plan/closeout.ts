// The close-out's decisions (issue 36), pure: when a complete's reconciliation window closes, where the file's RIDs
// stand against the exchange (counts only), and what apply submits, in which chunks, under which names. No I/O and no
// node:crypto (a workflow may call it): the idempotency keys come from the pure SHA-256 of shared/sha256.ts, and the
// delta's content hash from the caller that holds the rows.
import { MAX_ROWS_PER_SUBMISSION } from '../shared/closeout-reports';
import { moneyOf, toMicros, type Money } from '../shared/money';
import { uuidFromName } from '../shared/sha256';
import type {
  CloseoutBlock,
  CloseoutPlan,
  CloseoutReportType,
  CloseoutStep,
  DesiredCloseout,
  ObservedCloseout,
  ReversalClassification,
  SubmitApprovedCompletesStep,
  SubmitReversalsStep,
} from './closeout-types';

export { MAX_ROWS_PER_SUBMISSION };

const DAY_MS = 86_400_000;
/** The day of month M+1 through which a complete of month M can be reversed (Cint's policy: until the end of the 25th). */
export const RECONCILIATION_LAST_DAY = 25;

/** A close-out input that breaks the contract of plan/closeout-types.ts (a programming error of the caller, named). */
export class CloseoutInputError extends Error {
  override name = 'CloseoutInputError';
}

function instantMs(text: string, what: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new CloseoutInputError(`${what} is not a timestamp: ${JSON.stringify(text)}`);
  return ms;
}

/**
 * When the reconciliation window of a complete closes (exclusive): a complete from calendar month M (UTC) can be
 * reversed until the end of the 25th of month M+1, so the window closes at the 26th of M+1, 00:00:00Z.
 * `2026-12-31T23:59:59Z` -> `2027-01-26T00:00:00.000Z`.
 */
export function reconciliationWindowClosesAt(completedAt: string): string {
  const at = new Date(instantMs(completedAt, 'completedAt'));
  // Date.UTC carries month 12 into January of the next year.
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, RECONCILIATION_LAST_DAY + 1)).toISOString();
}

/** Whole days left before a window closing at `closesAt` (exclusive): 0 on its last day, negative once it has closed. */
export function daysLeft(closesAt: string, now: string): number {
  return Math.ceil((instantMs(closesAt, 'closesAt') - instantMs(now, 'now')) / DAY_MS) - 1;
}

/** One row of the normalized reversals list. */
export interface ReversalRow {
  rid: string;
  code: string;
}

/** What the exchange lists as an eligible complete of the account: its target group and when it completed. */
export interface EligibleComplete {
  targetGroupId: string;
  completedAt: string;
}

/** Where one row stands (classifyReversals counts these). */
export type ReversalRowState = 'to_submit' | 'submitted' | 'submitted_unlisted' | 'not_eligible' | 'window_closed';

/**
 * Where one row of the file stands at `now`: submitted before (listed as an eligible complete or, once the exchange
 * reversed it, not), not an eligible complete, past its window while unsubmitted, or to submit. `eligible` and
 * `submitted` are keyed by lower-case RIDs.
 */
export function reversalRowState(row: ReversalRow, eligible: ReadonlyMap<string, EligibleComplete>, submitted: ReadonlySet<string>, now: string): ReversalRowState {
  return stateOf(row, eligible, submitted, instantMs(now, 'now')).state;
}

/** Whether a row is one to submit now: the rows of the delta, which the caller digests (ObservedCloseout.delta). */
export function isToSubmit(row: ReversalRow, eligible: ReadonlyMap<string, EligibleComplete>, submitted: ReadonlySet<string>, now: string): boolean {
  return reversalRowState(row, eligible, submitted, now) === 'to_submit';
}

function stateOf(
  row: ReversalRow,
  eligible: ReadonlyMap<string, EligibleComplete>,
  submitted: ReadonlySet<string>,
  nowMs: number,
): { state: ReversalRowState; complete?: EligibleComplete; closesAt?: string } {
  const rid = row.rid.toLowerCase();
  const complete = eligible.get(rid) ?? eligible.get(row.rid);
  const wasSubmitted = submitted.has(rid) || submitted.has(row.rid);
  if (!complete) return { state: wasSubmitted ? 'submitted_unlisted' : 'not_eligible' };
  const closesAt = reconciliationWindowClosesAt(complete.completedAt);
  if (wasSubmitted) return { state: 'submitted', complete, closesAt };
  if (nowMs >= Date.parse(closesAt)) return { state: 'window_closed', complete, closesAt };
  return { state: 'to_submit', complete, closesAt };
}

class Classifier {
  private readonly result: ReversalClassification = { byTargetGroup: {}, notEligible: 0, windowClosed: {}, windowClosedAt: {}, submittedUnlisted: 0 };
  /** Earliest window per target group among its RIDs to submit, and among all its RIDs (when none is to submit). */
  private readonly earliestToSubmit = new Map<string, string>();
  private readonly earliestAny = new Map<string, string>();
  private readonly nowMs: number;

  constructor(
    private readonly eligible: ReadonlyMap<string, EligibleComplete>,
    private readonly submitted: ReadonlySet<string>,
    now: string,
  ) {
    this.nowMs = instantMs(now, 'now');
  }

  private group(tg: string) {
    return (this.result.byTargetGroup[tg] ??= { byCode: {}, windowClosesAt: '' });
  }

  add(row: ReversalRow): void {
    const { state, complete, closesAt } = stateOf(row, this.eligible, this.submitted, this.nowMs);
    if (state === 'submitted_unlisted') this.result.submittedUnlisted += 1;
    if (state === 'not_eligible') this.result.notEligible += 1;
    if (!complete || !closesAt) return;
    const tg = complete.targetGroupId;
    const earlier = (map: Map<string, string>) => {
      const seen = map.get(tg);
      if (seen === undefined || Date.parse(closesAt) < Date.parse(seen)) map.set(tg, closesAt);
    };
    earlier(this.earliestAny);
    const counts = (this.group(tg).byCode[row.code] ??= { toSubmit: 0, submitted: 0 });
    if (state === 'submitted') {
      counts.submitted += 1;
      return;
    }
    if (state === 'window_closed') {
      this.result.windowClosed[tg] = (this.result.windowClosed[tg] ?? 0) + 1;
      const seen = this.result.windowClosedAt[tg];
      if (seen === undefined || Date.parse(closesAt) < Date.parse(seen)) this.result.windowClosedAt[tg] = closesAt;
      return;
    }
    counts.toSubmit += 1;
    earlier(this.earliestToSubmit);
  }

  done(): ReversalClassification {
    for (const [tg, group] of Object.entries(this.result.byTargetGroup)) {
      group.windowClosesAt = this.earliestToSubmit.get(tg) ?? this.earliestAny.get(tg) ?? '';
      for (const [code, counts] of Object.entries(group.byCode)) if (counts.toSubmit === 0 && counts.submitted === 0) delete group.byCode[code];
    }
    return this.result;
  }
}

/**
 * Where the reversal file's rows stand, counted: a RID an earlier submission of this study holds (`submitted`) counts
 * as submitted and is never submitted again; one the exchange does not list among the account's eligible completes is
 * not eligible; one whose window closed at `now` before it was submitted counts in `windowClosed` of its target group;
 * the rest are to submit. A target group's `windowClosesAt` is the earliest window of its RIDs to submit (of all its
 * RIDs when none is). RIDs are compared in lower case: `eligible` and `submitted` are keyed by lower-case RIDs.
 * Synchronous over an iterable; over an async iterable (rows streamed from the blob store) it returns a promise.
 */
export function classifyReversals(rows: Iterable<ReversalRow>, eligible: ReadonlyMap<string, EligibleComplete>, submitted: ReadonlySet<string>, now: string): ReversalClassification;
export function classifyReversals(
  rows: AsyncIterable<ReversalRow>,
  eligible: ReadonlyMap<string, EligibleComplete>,
  submitted: ReadonlySet<string>,
  now: string,
): Promise<ReversalClassification>;
export function classifyReversals(
  rows: Iterable<ReversalRow> | AsyncIterable<ReversalRow>,
  eligible: ReadonlyMap<string, EligibleComplete>,
  submitted: ReadonlySet<string>,
  now: string,
): ReversalClassification | Promise<ReversalClassification> {
  const classifier = new Classifier(eligible, submitted, now);
  if (Symbol.asyncIterator in rows) {
    return (async () => {
      for await (const row of rows) classifier.add(row);
      return classifier.done();
    })();
  }
  for (const row of rows) classifier.add(row);
  return classifier.done();
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The submissions of a delta of `deltaRows` rows: chunks of at most 100,000 rows, named
 * `<study>-<first 12 hex digits of the delta's SHA-256>-<n>` (n from 1), each with an idempotency key derived from its
 * name (a name-based UUID, shared/sha256.ts uuidFromName), so a re-run names and keys the same chunks.
 */
export function reversalChunks(studyId: string, deltaSha256: string, deltaRows: number): SubmitReversalsStep[] {
  if (!HEX64.test(deltaSha256)) throw new CloseoutInputError(`the delta's SHA-256 is not 64 lower-case hex digits: ${JSON.stringify(deltaSha256)}`);
  if (!Number.isInteger(deltaRows) || deltaRows < 0) throw new CloseoutInputError(`the delta's row count is not a whole number: ${deltaRows}`);
  const steps: SubmitReversalsStep[] = [];
  for (let chunk = 0; chunk * MAX_ROWS_PER_SUBMISSION < deltaRows; chunk += 1) {
    const name = `${studyId}-${deltaSha256.slice(0, 12)}-${chunk + 1}`;
    const from = chunk * MAX_ROWS_PER_SUBMISSION;
    steps.push({
      kind: 'submit_reversals',
      name,
      idempotencyKey: uuidFromName(name),
      chunk,
      rowsPerChunk: MAX_ROWS_PER_SUBMISSION,
      from,
      rows: Math.min(MAX_ROWS_PER_SUBMISSION, deltaRows - from),
    });
  }
  return steps;
}

/** The name of the approved-completes submission: `<study>-approved-<first 12 hex digits of the list's SHA-256>`. */
export function approvedCompletesName(studyId: string, listSha256: string): string {
  return `${studyId}-approved-${listSha256.slice(0, 12)}`;
}

/** Completes × CPI, exactly (undefined when the CPI is unknown or not readable). */
function reversedMoney(completes: number, cpi: Money | undefined): Money | undefined {
  const micros = cpi ? toMicros(cpi.value) : undefined;
  return micros === undefined || !cpi ? undefined : moneyOf(micros * BigInt(completes), cpi.currency_code);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The plan of a study's close-out: per target group what would be submitted and what it reverses in money, the days
 * left before its window closes; what blocks it (then no submission is planned at all); the steps: the delta's chunks
 * not submitted yet by name, the approved completes once, and the reports not archived yet once the reversals are
 * done. `delta` (the RIDs to submit, digested by the caller that holds them) defaults to `observed.delta`.
 */
export function planCloseout(studyId: string, desired: DesiredCloseout, observed: ObservedCloseout, now: string, delta = observed.delta): CloseoutPlan {
  const { classification } = observed;
  const keyOf = (tg: string) => observed.targetGroups[tg]?.key ?? tg;
  const perTargetGroup: CloseoutPlan['perTargetGroup'] = Object.keys(classification.byTargetGroup)
    .sort((a, b) => byText(keyOf(a), keyOf(b)) || byText(a, b))
    .map((targetGroupId) => {
      const group = classification.byTargetGroup[targetGroupId];
      const toSubmit = Object.values(group.byCode).reduce((sum, c) => sum + c.toSubmit, 0);
      const reverses = reversedMoney(toSubmit, observed.targetGroups[targetGroupId]?.cpi);
      const closesMs = instantMs(group.windowClosesAt, `windowClosesAt of ${targetGroupId}`);
      return {
        targetGroupId,
        key: keyOf(targetGroupId),
        byCode: group.byCode,
        ...(reverses ? { reverses } : {}),
        windowClosesAt: group.windowClosesAt,
        daysLeft: daysLeft(group.windowClosesAt, now),
        deadlineWarningAt: new Date(closesMs - desired.deadlineWarningMs).toISOString(),
      };
    });

  const blocks: CloseoutBlock[] = [];
  // A code blocks while rows under it are not submitted yet (a code phased out after its rows went in blocks nothing).
  const submittedByCode = new Map<string, number>();
  for (const group of Object.values(classification.byTargetGroup)) {
    for (const [code, counts] of Object.entries(group.byCode)) submittedByCode.set(code, (submittedByCode.get(code) ?? 0) + counts.submitted);
  }
  const known = new Map(observed.reasonCodes.map((c) => [c.code, c]));
  for (const code of Object.keys(desired.reversals?.byCode ?? {}).sort(byText)) {
    const rows = (desired.reversals?.byCode[code] ?? 0) - (submittedByCode.get(code) ?? 0);
    if (rows <= 0) continue;
    const listed = known.get(code);
    if (!listed) blocks.push({ kind: 'unknown_reason_code', code, rows });
    else if (!listed.allowed) blocks.push({ kind: 'reason_code_not_allowed', code, rows });
  }
  for (const targetGroupId of Object.keys(classification.windowClosed).sort((a, b) => byText(keyOf(a), keyOf(b)))) {
    const rows = classification.windowClosed[targetGroupId];
    if (rows > 0) blocks.push({ kind: 'window_closed', targetGroupId, key: keyOf(targetGroupId), rows, closedAt: classification.windowClosedAt[targetGroupId] ?? '' });
  }
  const approved = desired.approvedCompletes;
  const wouldTerminate = observed.approvedCompletesWouldTerminate;
  if (approved && wouldTerminate !== undefined && Math.abs(wouldTerminate - approved.expectTerminated) > approved.tolerance) {
    blocks.push({ kind: 'approved_completes_out_of_tolerance', expected: approved.expectTerminated, tolerance: approved.tolerance, wouldTerminate });
  }

  const steps: CloseoutStep[] = [];
  const submittedNames = new Set(observed.submissions.map((s) => s.name));
  if (blocks.length === 0) {
    const toSubmit = perTargetGroup.reduce((sum, tg) => sum + Object.values(tg.byCode).reduce((s, c) => s + c.toSubmit, 0), 0);
    if (toSubmit > 0) {
      if (!delta) throw new CloseoutInputError(`${toSubmit} RID(s) are to submit, but no delta (its SHA-256 and rows) was given to name the submissions`);
      if (delta.count !== toSubmit) throw new CloseoutInputError(`the delta holds ${delta.count} row(s), the classification counts ${toSubmit} to submit`);
      for (const step of reversalChunks(studyId, delta.sha256, delta.count)) if (!submittedNames.has(step.name)) steps.push(step);
    }
    if (approved && wouldTerminate !== undefined && observed.projectId) {
      const name = approvedCompletesName(studyId, approved.list.sha256);
      if (!submittedNames.has(name)) {
        const step: SubmitApprovedCompletesStep = { kind: 'submit_approved_completes', name, idempotencyKey: uuidFromName(name), projectId: observed.projectId, terminates: wouldTerminate };
        steps.push(step);
      }
    }
  }
  const pendingReports = desired.reports.filter((r) => !observed.archivedReports.includes(r));
  const reversalsDone = blocks.length === 0 && steps.length === 0 && observed.submissions.every((s) => s.done);
  const reportsWaiting: CloseoutReportType[] = reversalsDone ? [] : pendingReports;
  if (reversalsDone) for (const report of pendingReports) steps.push({ kind: 'archive_report', report });

  return {
    perTargetGroup,
    notEligible: classification.notEligible,
    steps,
    reportsWaiting,
    blocks,
    needsApproval: steps.some((s) => s.kind === 'submit_reversals' || s.kind === 'submit_approved_completes'),
  };
}

/** The close-out in a few figures, for views (they render it; no text here). */
export interface CloseoutSummary {
  toSubmit: number;
  submitted: number;
  notEligible: number;
  windowClosed: number;
  /** Money reversed by the RIDs to submit, one amount per currency, sorted by currency. */
  reverses: Money[];
  /** Target groups whose CPI is unknown: their reversals are not in `reverses`. */
  unpriced: number;
  submissions: number;
  /** The earliest window among the target groups with RIDs to submit, and its days left. */
  nextDeadline?: { targetGroupId: string; key: string; windowClosesAt: string; daysLeft: number };
  blocked: boolean;
  needsApproval: boolean;
}

export function closeoutSummary(plan: CloseoutPlan, classification: ReversalClassification): CloseoutSummary {
  let toSubmit = 0;
  let submitted = 0;
  let unpriced = 0;
  const micros = new Map<string, bigint>();
  let next: CloseoutSummary['nextDeadline'];
  for (const tg of plan.perTargetGroup) {
    const pending = Object.values(tg.byCode).reduce((s, c) => s + c.toSubmit, 0);
    toSubmit += pending;
    submitted += Object.values(tg.byCode).reduce((s, c) => s + c.submitted, 0);
    if (pending > 0 && !tg.reverses) unpriced += 1;
    if (tg.reverses) micros.set(tg.reverses.currency_code, (micros.get(tg.reverses.currency_code) ?? 0n) + (toMicros(tg.reverses.value) ?? 0n));
    if (pending > 0 && (!next || Date.parse(tg.windowClosesAt) < Date.parse(next.windowClosesAt))) {
      next = { targetGroupId: tg.targetGroupId, key: tg.key, windowClosesAt: tg.windowClosesAt, daysLeft: tg.daysLeft };
    }
  }
  return {
    toSubmit,
    submitted: submitted + classification.submittedUnlisted,
    notEligible: plan.notEligible,
    windowClosed: Object.values(classification.windowClosed).reduce((s, n) => s + n, 0),
    reverses: [...micros.entries()].sort(([a], [b]) => byText(a, b)).map(([currency, m]) => moneyOf(m, currency)),
    unpriced,
    submissions: plan.steps.filter((s) => s.kind === 'submit_reversals').length,
    ...(next ? { nextDeadline: next } : {}),
    blocked: plan.blocks.length > 0,
    needsApproval: plan.needsApproval,
  };
}

/**
 * What an approval of a close-out binds to: the reviewed content of its files (the reversals' and the approved
 * completes' SHA-256), so an approval given for one file does not submit another.
 */
export function closeoutApprovalKey(closeout: DesiredCloseout | undefined): string {
  return `${closeout?.reversals?.sha256 ?? '-'}:${closeout?.approvedCompletes?.list.sha256 ?? '-'}`;
}

/** Why a close-out is blocked, in one line: the text apply's unapplied change, `status` and `plan` show. */
export function closeoutBlockText(block: CloseoutBlock): string {
  switch (block.kind) {
    case 'unknown_reason_code':
      return `reason code ${block.code} (${block.rows} RID(s)) is not in the exchange's list`;
    case 'reason_code_not_allowed':
      return `reason code ${block.code} (${block.rows} RID(s)) is phased out (allowed: false)`;
    case 'window_closed':
      return `${block.key}: the reconciliation window closed at ${block.closedAt} for ${block.rows} RID(s); nothing is submitted`;
    case 'approved_completes_out_of_tolerance':
      return `approved_completes would terminate ${block.wouldTerminate} completes, expected ${block.expected} ± ${block.tolerance}`;
  }
}

/** The next `closeout_deadline` warning a study owes: the target group whose window closes first among those still to reverse. */
export interface CloseoutWarning {
  key: string;
  closesAt: string;
  warnAt: string;
  toReverse: number;
}

/**
 * When the study warns of a closing window (pure; the study workflow sleeps until `warnAt`): a close-out not closed,
 * a target group with RIDs still to reverse whose window was not warned of yet (`notified`: key -> the window warned
 * of), the earliest warning first. Undefined when none is owed.
 */
export function nextCloseoutWarning(
  closeout: { phase: string; perTargetGroup: readonly CloseoutPlan['perTargetGroup'][number][]; deadlineNotified?: Readonly<Record<string, string>> } | undefined,
): CloseoutWarning | undefined {
  if (!closeout || closeout.phase === 'closed') return undefined;
  let next: CloseoutWarning | undefined;
  for (const tg of closeout.perTargetGroup) {
    const toReverse = Object.values(tg.byCode).reduce((n, c) => n + c.toSubmit, 0);
    if (toReverse === 0 || !tg.windowClosesAt || !tg.deadlineWarningAt) continue;
    if (closeout.deadlineNotified?.[tg.key] === tg.windowClosesAt) continue;
    if (!next || Date.parse(tg.deadlineWarningAt) < Date.parse(next.warnAt)) next = { key: tg.key, closesAt: tg.windowClosesAt, warnAt: tg.deadlineWarningAt, toReverse };
  }
  return next;
}

/** The rows of a stored reversals list (its normalized `rid,code` lines): RIDs in lower case, lines without both skipped. */
export async function* reversalRows(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<ReversalRow> {
  for await (const line of lines) {
    const [rid, code] = line.split(',');
    if (rid && code) yield { rid: rid.toLowerCase(), code };
  }
}

/** What the exchange holds that the rows are counted against (api/operations/closeout-facts.ts CloseoutFacts, structurally). */
export interface ReversalFacts {
  eligible: ReadonlyMap<string, EligibleComplete>;
  windowClosed: ReadonlyMap<string, EligibleComplete>;
  submitted: ReadonlySet<string>;
  exchangeNow: string;
}

/**
 * Counts the rows against the exchange's facts (classifyReversals, over the completes still eligible and those whose
 * window closed) and hands each row to submit now to `toSubmit` as its `rid,code\n` line, in the rows' order: the
 * delta the observeCloseout activity stores and `studyflow plan` digests, so both name the same submissions.
 */
export async function countReversals(rows: AsyncIterable<ReversalRow>, facts: ReversalFacts, toSubmit: (line: string) => void): Promise<ReversalClassification> {
  const completes = new Map([...facts.eligible, ...facts.windowClosed]);
  async function* delivered() {
    for await (const row of rows) {
      if (isToSubmit(row, completes, facts.submitted, facts.exchangeNow)) toSubmit(`${row.rid},${row.code}\n`);
      yield row;
    }
  }
  return await classifyReversals(delivered(), completes, facts.submitted, facts.exchangeNow);
}
