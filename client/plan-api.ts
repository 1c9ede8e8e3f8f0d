// The study client's own way to the Demand API for `studyflow plan`: the API client the settings configure (a dev
// stack's where unset, as the worker's: api/http/api-client-env.ts), a caller per study, and over it the plain
// operations of api/operations/: observe (the one mapping the observeStudy activity runs too), the server checks and
// the live changes' feasibility (plan-checks.ts). Loaded only when a plan reaches the API (the API client, undici).
import { demandApiFromEnv } from '../api/http/api-client-env';
import { apiCaller, type ApiCaller } from '../api/operations/caller';
import { observeStudy, type KnownStudyIds } from '../api/operations/observe-study';
import { listDigest } from '../blobs/id-list-digest';
import type { TargetGroupChecks } from '../plan/server-checks';
import type { DesiredStudy, ObservedStudy, StudyPlan } from '../plan/types';
import { answerLiveChecks, failureReason, isUnreachable, runServerChecks } from './plan-checks';
import { planStudyCloseout, type CloseoutPlanInput } from './plan-closeout';
import type { BlobStore } from '../blobs/blob-store';
import type { CloseoutPlan } from '../plan/closeout-types';

export interface PlanApi {
  /** What the API holds for the study, with what its workflow remembers (`known`). */
  observe(desired: DesiredStudy, known: KnownStudyIds): Promise<ObservedStudy>;
  /** The server checks of the study; those of `launchAhead` are asked (plan-checks.ts runServerChecks). */
  serverChecks(desired: DesiredStudy, observed: ObservedStudy, launchAhead: readonly string[], options: { now: number }): Promise<TargetGroupChecks[]>;
  /** Each live change's feasibility check, answered now (plan-checks.ts answerLiveChecks). */
  liveChecks(desired: DesiredStudy, observed: ObservedStudy, plan: StudyPlan): Promise<StudyPlan>;
  /** The study's close-out against the exchange (plan-closeout.ts), with the lists read from `blobs`. */
  closeout(desired: DesiredStudy, input: Omit<CloseoutPlanInput, 'studyId' | 'closeout'>, blobs: BlobStore): Promise<{ plan?: CloseoutPlan; note?: string }>;
  /** True when the error says the API could not be reached at all. */
  isUnreachable(error: unknown): boolean;
  /** A failed call as one line. */
  failureReason(error: unknown): string;
}

/**
 * The API of `env` for planning. @throws ApiConfigError when the connection settings are incomplete (as the worker
 * refuses them), Error on a bad pacing or connection limit.
 */
export function openPlanApi(env: NodeJS.ProcessEnv): PlanApi {
  const { api } = demandApiFromEnv(env);
  // The study's account and version, as an activity's caller has them (no trace context, cancellation or progress here).
  const callerFor = (desired: DesiredStudy): ApiCaller => apiCaller(api, { accountId: desired.accountId, apiVersion: desired.apiVersion });
  return {
    observe: async (desired, known) => await observeStudy(callerFor(desired), { desired, known }, { digest: listDigest }),
    serverChecks: async (desired, observed, launchAhead, options) => await runServerChecks(callerFor(desired), desired, observed, launchAhead, options),
    liveChecks: async (desired, observed, plan) => await answerLiveChecks(callerFor(desired), desired, observed, plan),
    closeout: async (desired, input, blobs) =>
      desired.closeout ? await planStudyCloseout(callerFor(desired), blobs, { ...input, studyId: desired.studyId, closeout: desired.closeout }) : {},
    isUnreachable,
    failureReason,
  };
}
