// What a close-out needs to know of the exchange, read once for `studyflow plan` (client/) and for apply's
// observeCloseout activity (activities/): the reason codes, this study's earlier submissions and the RIDs they
// held, the project's completes still inside their reconciliation window and those whose window closed (the
// exchange's judgement: a complete in the `completes` report that the `reconciliation-eligible-rids` report no
// longer lists), and the exchange's clock. The RIDs stay in memory here; callers count with them (plan/closeout.ts)
// and never put them in a workflow payload.
import { createInterface } from 'node:readline';
import type { ApiCaller } from './caller';
import { wireMismatchFailure } from '../wire/read-answer';
import { csvRecords } from './csv-stream';
import { downloadReconciliationFile, observeSubmission, reconciliationReasonCodes, reconciliationsNamed, type ReasonCode, type SubmissionObservation } from './reconciliations';
import { awaitReport, downloadReport, eligibleRidsReport, generateReport, type AwaitReportOptions, type EligibleRid } from './reports';

export interface CloseoutFacts {
  reasonCodes: ReasonCode[];
  /** The study's submissions (named `<study>-…`), with their status and counts. */
  submissions: SubmissionObservation[];
  /** RIDs (lower case) an earlier submission of this study holds. */
  submitted: Set<string>;
  /** RIDs (lower case) the exchange still lets reconcile -> target group and completion. */
  eligible: Map<string, EligibleRid>;
  /** The project's completes whose window closed: RID -> target group and completion. */
  windowClosed: Map<string, EligibleRid>;
  /** Every complete of the project (RID -> target group), for an approved-completes list. */
  completes: Map<string, EligibleRid>;
  /** Per target group id, the cost per interview its completes were paid at (the completes report's, as it gives it). */
  cpi: Record<string, { value: string; currency_code: string }>;
  /** The exchange's time of the reads (its clock judges the windows). */
  exchangeNow: string;
}

/** The study's target groups (remote id -> …) with the CPI their completes were paid at, where the exchange's completes give one. */
export function withCpi<T extends { cpi?: { value: string; currency_code: string } }>(targetGroups: Record<string, T>, cpi: CloseoutFacts['cpi']): Record<string, T> {
  return Object.fromEntries(Object.entries(targetGroups).map(([id, tg]) => [id, tg.cpi || !cpi[id] ? tg : { ...tg, cpi: cpi[id] }]));
}

/** The prefix of every submission name of a study. */
export const submissionPrefix = (studyId: string): string => `${studyId}-`;

/** Reads the close-out's facts of one study's project. `heartbeat` is called between the long reads. */
export async function closeoutFacts(
  caller: ApiCaller,
  input: { studyId: string; projectId: string; heartbeat?: () => void } & AwaitReportOptions,
): Promise<CloseoutFacts> {
  const beat = input.heartbeat ?? (() => undefined);
  const reasonCodes = await reconciliationReasonCodes(caller);
  const prefix = submissionPrefix(input.studyId);
  const submissions: SubmissionObservation[] = [];
  const submitted = new Set<string>();
  for (const item of await reconciliationsNamed(caller, { name: prefix, prefix: true })) {
    submissions.push({ ...(await observeSubmission(caller, { requestId: item.id })), name: item.name });
    const file = await downloadReconciliationFile(caller, { requestId: item.id, type: 'submitted-rids' });
    for await (const line of createInterface({ input: file, crlfDelay: Infinity })) {
      const rid = line.split(',')[0]?.trim().toLowerCase();
      if (rid) submitted.add(rid);
    }
    beat();
  }
  const report = await eligibleRidsReport(caller, { projectId: input.projectId, intervalMs: input.intervalMs, maxWaitMs: input.maxWaitMs, sleep: input.sleep });
  beat();
  const { completes, cpi } = await completesOfProject(caller, input);
  beat();
  const windowClosed = new Map<string, EligibleRid>();
  for (const [rid, where] of completes) if (!report.rids.has(rid)) windowClosed.set(rid, where);
  return { reasonCodes, submissions, submitted, eligible: report.rids, windowClosed, completes, cpi, exchangeNow: report.exchangeNow ?? new Date().toISOString() };
}

/** The project's completes (the `completes` report): RID (lower case) -> target group and completion, and each group's CPI. */
async function completesOfProject(caller: ApiCaller, input: { projectId: string } & AwaitReportOptions): Promise<Pick<CloseoutFacts, 'completes' | 'cpi'>> {
  const job = await generateReport(caller, { type: 'completes', filter: 'project', ids: [input.projectId] });
  await awaitReport(caller, { reportId: job.reportId, intervalMs: input.intervalMs, maxWaitMs: input.maxWaitMs, sleep: input.sleep });
  const file = await downloadReport(caller, { reportId: job.reportId });
  const out = new Map<string, EligibleRid>();
  const cpi: CloseoutFacts['cpi'] = {};
  try {
    let at: { rid: number; tg: number; completed: number; cpi: number; currency: number } | undefined;
    for await (const record of csvRecords(file.body)) {
      if (!at) {
        const names = record.map((n) => n.trim().toLowerCase());
        at = { rid: names.indexOf('rid'), tg: names.indexOf('target_group_id'), completed: names.indexOf('completed_at'), cpi: names.indexOf('cost_per_interview'), currency: names.indexOf('currency_code') };
        if (at.rid < 0 || at.tg < 0) throw wireMismatchFailure({ operation: 'download_report_v2', method: 'GET', path: `(completes report ${job.reportId})` }, 200, 'a CSV report', ['the header has no rid or target_group_id column']);
        continue;
      }
      const rid = (record[at.rid] ?? '').trim().toLowerCase();
      const targetGroupId = (record[at.tg] ?? '').trim();
      if (!rid) continue;
      out.set(rid, { targetGroupId, completedAt: at.completed >= 0 ? (record[at.completed] ?? '').trim() : '' });
      const value = at.cpi >= 0 ? (record[at.cpi] ?? '').trim() : '';
      const currency = at.currency >= 0 ? (record[at.currency] ?? '').trim() : '';
      if (value && currency && !cpi[targetGroupId]) cpi[targetGroupId] = { value, currency_code: currency };
    }
  } finally {
    file.body.destroy();
  }
  return { completes: out, cpi };
}

/** How many completes an approved-completes list would terminate: the project's completes in their window it does not list. */
export async function wouldTerminate(facts: CloseoutFacts, keepLines: AsyncIterable<string>): Promise<number> {
  const keep = new Set<string>();
  for await (const line of keepLines) if (line.trim()) keep.add(line.trim().toLowerCase());
  return [...facts.completes.keys()].filter((rid) => !keep.has(rid) && !facts.windowClosed.has(rid)).length;
}

/**
 * The planning core's observation of a close-out (plan/closeout-types.ts ObservedCloseout, structurally) from the facts
 * and what the caller counted with them: the plan's client and the observeCloseout activity build it alike.
 */
export async function closeoutObservation<C, T extends { cpi?: { value: string; currency_code: string } }, R>(
  facts: CloseoutFacts,
  input: { classification: C; targetGroups: Record<string, T>; archivedReports: R[]; projectId: string; keepLines?: AsyncIterable<string> },
) {
  const terminated = input.keepLines ? await wouldTerminate(facts, input.keepLines) : undefined;
  return {
    reasonCodes: facts.reasonCodes,
    classification: input.classification,
    ...(terminated !== undefined ? { approvedCompletesWouldTerminate: terminated } : {}),
    targetGroups: withCpi(input.targetGroups, facts.cpi),
    submissions: facts.submissions,
    archivedReports: input.archivedReports,
    projectId: input.projectId,
  };
}
