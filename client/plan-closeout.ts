// `studyflow plan` of a study's close-out: the exchange's facts (api/operations/closeout-facts.ts, the reads the
// observeCloseout activity makes too), the file's rows read from the blob store where prepare put them, counted
// against those facts (plan/closeout.ts classifyReversals, as the activity counts), then planCloseout, the one
// planning function apply runs. The RIDs stay in this process.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { ApiCaller } from '../api/operations/caller';
import { closeoutFacts, closeoutObservation } from '../api/operations/closeout-facts';
import type { BlobStore } from '../blobs/blob-store';
import { countReversals, planCloseout, reversalRows } from '../plan/closeout';
import type { CloseoutPlan, CloseoutReportType, DesiredCloseout, ObservedCloseout } from '../plan/closeout-types';

export interface CloseoutPlanInput {
  studyId: string;
  /** The study's project in the exchange; without one there is nothing to close out yet. */
  projectId?: string;
  closeout: DesiredCloseout;
  /** Remote target group id -> its key, status and CPI (from the observation and the workflow's status). */
  targetGroups: ObservedCloseout['targetGroups'];
  /** Reports the study's workflow archived already. */
  archivedReports: CloseoutReportType[];
}

/** The close-out's plan against the exchange, or why there is none yet. */
export async function planStudyCloseout(caller: ApiCaller, blobs: BlobStore, input: CloseoutPlanInput): Promise<{ plan?: CloseoutPlan; note?: string }> {
  if (!input.projectId) return { note: 'the study has no project in the exchange yet: the close-out is planned once it fielded' };
  const facts = await closeoutFacts(caller, { studyId: input.studyId, projectId: input.projectId });
  const delta = createHash('sha256');
  let deltaCount = 0;
  const ref = input.closeout.reversals?.ref;
  const lines = ref ? createInterface({ input: blobs.open(ref), crlfDelay: Infinity }) : [];
  const classification = await countReversals(reversalRows(lines), facts, (line) => {
    delta.update(line);
    deltaCount += 1;
  });
  const approved = input.closeout.approvedCompletes;
  const observed: ObservedCloseout = {
    ...(await closeoutObservation(facts, {
      classification,
      targetGroups: input.targetGroups,
      archivedReports: input.archivedReports,
      projectId: input.projectId,
      ...(approved ? { keepLines: createInterface({ input: blobs.open(approved.list.ref), crlfDelay: Infinity }) } : {}),
    })),
    ...(deltaCount ? { delta: { sha256: delta.digest('hex'), count: deltaCount } } : {}),
  };
  return { plan: planCloseout(input.studyId, input.closeout, observed, facts.exchangeNow) };
}
