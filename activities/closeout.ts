// The close-out's activities (issue 36): observe what the exchange holds of the study's reversals (counts only;
// the RIDs are read from the blob store and never leave this process), submit a chunk once (looked up by its
// name first), follow a submission to its end and archive its files, archive a report. Each is idempotent: a
// retry, a crash or a re-apply finds the submission by name and never posts twice.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import { closeoutFacts, closeoutObservation } from '../api/operations/closeout-facts';
import { downloadReconciliationFile, findSubmissionByName, observeSubmission, reconciliationTargetGroups, submitApprovedCompletes, submitReconciliations } from '../api/operations/reconciliations';
import { awaitReport, downloadReport, generateReport } from '../api/operations/reports';
import type { ReconciliationTargetGroup } from '../api/wire/reconciliations';
import { countReversals, reversalRows } from '../plan/closeout';
import type { CloseoutReportType, DesiredCloseout, ObservedCloseout, ObservedSubmission } from '../plan/closeout-types';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import type { ActivityCtx } from './types';

export interface ObserveCloseoutInput {
  ctx: ActivityCtx;
  studyId: string;
  projectId: string;
  /** Remote id -> the study's key, of the study's target groups. */
  targetGroups: Record<string, { key: string; status: string; cpi?: { value: string; currency_code: string } }>;
  closeout: DesiredCloseout;
  /** Reports the workflow archived already. */
  archivedReports?: CloseoutReportType[];
}

export interface ObserveCloseoutOutput {
  observed: ObservedCloseout;
  /** The rows still to submit, stored as their own list (absent: none). */
  delta?: { ref: string; sha256: string; count: number };
  /** The exchange's time of the reads (its clock judges the windows). */
  exchangeNow: string;
}

export interface SubmitReversalsInput {
  ctx: ActivityCtx;
  name: string;
  idempotencyKey: string;
  delta: { ref: string };
  /** Rows [from, from + rows) of the delta. */
  from: number;
  rows: number;
}

export interface SubmitApprovedCompletesInput {
  ctx: ActivityCtx;
  name: string;
  idempotencyKey: string;
  projectId: string;
  list: { ref: string };
}

export interface SubmittedOutput {
  requestId: string;
  /** The name was already submitted (a retry, a crash or a re-apply): nothing was posted. */
  found: boolean;
}

export interface AwaitReconciliationInput {
  ctx: ActivityCtx;
  studyId: string;
  requestId: string;
  /** How often to poll (default 2 s). */
  pollMs?: number;
}

export interface AwaitReconciliationOutput {
  submission: ObservedSubmission;
  /** Per remote target group id: its counts. */
  perTargetGroup: Record<string, { reversed: number; expired: number; invalid: number }>;
  /** The result files, archived: download type -> blob object name (by content hash). */
  archives: Record<string, string>;
}

export interface ArchiveReportInput {
  ctx: ActivityCtx;
  studyId: string;
  projectId: string;
  report: CloseoutReportType;
}

/** Rows of a stored list, one line at a time (`rid,code` for reversals, `rid` for an approved-completes list). */
async function* storedLines(deps: ActivityDeps, ref: string): AsyncGenerator<string> {
  const lines = createInterface({ input: deps.blobs.open(ref), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield line;
}

async function* slice(source: AsyncIterable<string>, from: number, rows: number): AsyncGenerator<string> {
  let i = 0;
  for await (const line of source) {
    if (i >= from + rows) break;
    if (i >= from) yield line;
    i += 1;
  }
}

/** Archived files are side objects of the blob store, named by their content hash. */
async function archive(deps: ActivityDeps, studyId: string, kind: string, body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  for await (const chunk of body) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    hash.update(b);
    chunks.push(b);
  }
  const name = `closeout/${studyId.replace(/[^A-Za-z0-9._-]/g, '_')}/${kind}-${hash.digest('hex')}.csv`;
  await deps.blobs.objects.put(name, Buffer.concat(chunks));
  return name;
}

export function closeoutActivities(deps: ActivityDeps) {
  return {
    /** Reads what the close-out needs (api/operations/closeout-facts.ts) and counts the file's rows against it; the rows to submit become a list of their own. */
    async observeCloseout(input: ObserveCloseoutInput): Promise<ObserveCloseoutOutput> {
      const ctx = checkCtx('observeCloseout', input.ctx);
      const studyId = requireText('observeCloseout', 'studyId', input.studyId);
      const projectId = requireText('observeCloseout', 'projectId', input.projectId);
      const caller = activityCaller(deps, ctx);
      const facts = await closeoutFacts(caller, { studyId, projectId, heartbeat: () => Context.current().heartbeat() });
      const reversals = input.closeout.reversals;
      const delta: string[] = [];
      const classification = await countReversals(reversalRows(reversals ? storedLines(deps, reversals.ref) : []), facts, (line) => delta.push(line));
      const approved = input.closeout.approvedCompletes;
      const observed: ObservedCloseout = await closeoutObservation(facts, {
        classification,
        targetGroups: input.targetGroups,
        archivedReports: input.archivedReports ?? [],
        projectId,
        ...(approved ? { keepLines: storedLines(deps, approved.list.ref) } : {}),
      });
      if (!delta.length) return { observed, exchangeNow: facts.exchangeNow };
      const stored = await deps.blobs.put(delta);
      observed.delta = { sha256: stored.sha256, count: stored.count };
      return { observed, delta: { ref: stored.ref, sha256: stored.sha256, count: stored.count }, exchangeNow: facts.exchangeNow };
    },

    /** Submits rows of the delta under `name`, unless a submission of that name exists (then its request id). */
    async submitReversals(input: SubmitReversalsInput): Promise<SubmittedOutput> {
      const ctx = checkCtx('submitReversals', input.ctx);
      const name = requireText('submitReversals', 'name', input.name);
      const caller = activityCaller(deps, ctx);
      const found = await findSubmissionByName(caller, { name });
      if (found) return { requestId: found.requestId, found: true };
      const requestId = await submitReconciliations(caller, {
        name,
        idempotencyKey: input.idempotencyKey,
        file: { lines: () => slice(storedLines(deps, input.delta.ref), input.from, input.rows) },
      });
      return { requestId, found: false };
    },

    /** Submits the project's completes to keep (post_reconciliations_completes), once by name. */
    async submitApprovedCompletesList(input: SubmitApprovedCompletesInput): Promise<SubmittedOutput> {
      const ctx = checkCtx('submitApprovedCompletesList', input.ctx);
      const name = requireText('submitApprovedCompletesList', 'name', input.name);
      const caller = activityCaller(deps, ctx);
      const found = await findSubmissionByName(caller, { name });
      if (found) return { requestId: found.requestId, found: true };
      const requestId = await submitApprovedCompletes(caller, {
        name,
        idempotencyKey: input.idempotencyKey,
        projectId: input.projectId,
        file: { lines: () => storedLines(deps, input.list.ref) },
      });
      return { requestId, found: false };
    },

    /** Polls a submission to its end (heartbeating), then reads its counts per target group and archives its files. */
    async awaitReconciliation(input: AwaitReconciliationInput): Promise<AwaitReconciliationOutput> {
      const ctx = checkCtx('awaitReconciliation', input.ctx);
      const requestId = requireText('awaitReconciliation', 'requestId', input.requestId);
      const caller = activityCaller(deps, ctx);
      const pollMs = input.pollMs ?? 2000;
      let submission = await observeSubmission(caller, { requestId });
      while (!submission.done) {
        Context.current().heartbeat(submission.status);
        await Context.current().sleep(pollMs);
        submission = await observeSubmission(caller, { requestId });
      }
      const perTargetGroup: AwaitReconciliationOutput['perTargetGroup'] = {};
      for (const tg of await reconciliationTargetGroups(caller, { requestId })) perTargetGroup[tg.target_group_id] = countsOf(tg);
      const archives: Record<string, string> = {};
      for (const type of ['submitted-rids', 'expired-rids', 'invalid-rids'] as const) {
        archives[type] = await archive(deps, input.studyId, type, await downloadReconciliationFile(caller, { requestId, type }));
        Context.current().heartbeat(type);
      }
      return { submission, perTargetGroup, archives };
    },

    /** Generates a report of the project, waits for it and archives it in the blob store. */
    async archiveCloseoutReport(input: ArchiveReportInput): Promise<{ archive: string }> {
      const ctx = checkCtx('archiveCloseoutReport', input.ctx);
      const caller = activityCaller(deps, ctx);
      const job = await generateReport(caller, { type: input.report, filter: 'project', ids: [input.projectId] });
      await awaitReport(caller, { reportId: job.reportId, sleep: async (ms) => { Context.current().heartbeat(input.report); await Context.current().sleep(ms); } });
      const file = await downloadReport(caller, { reportId: job.reportId });
      return { archive: await archive(deps, input.studyId, input.report, file.body) };
    },
  };
}

/** A target group's counts of a submission (absent counts are none yet). */
function countsOf(tg: ReconciliationTargetGroup): { reversed: number; expired: number; invalid: number } {
  return { reversed: (tg.positive_reversed_count ?? 0) + (tg.negative_reversed_count ?? 0), expired: tg.expired_count ?? 0, invalid: tg.invalid_count ?? 0 };
}


