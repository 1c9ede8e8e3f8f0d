// `plan` in the study client: what the study workflow would do with each prepared study, without writing.
// Observe (api/operations/observe-study.ts, the mapping the observeStudy activity runs, with what the study's
// workflow remembers), the inputs the workflow derives too (plan/revision-inputs.ts), the server-side dry run of the
// launch checks (plan-checks.ts), then the one pipeline the workflow runs too (plan/pipeline.ts). The API is asked
// through plan-api.ts, loaded only when the plan reaches it.
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import { budgetInputsFromChecks, budgetNotes } from '../plan/budget';
import { closeoutBlockText } from '../plan/closeout';
import { CLOSEOUT_REPORT_TYPES, type CloseoutPlan } from '../plan/closeout-types';
import { MAX_REVERSAL_ROWS } from '../shared/closeout-reports';
import { studyForecastFromChecks, type StudyForecast } from '../plan/forecast';
import { planExitCode } from '../plan/exit-code';
import { planRevision } from '../plan/pipeline';
import type { StudyProgram } from '../plan/program';
import { revisionBudgetFrom, revisionInputs } from '../plan/revision-inputs';
import type { ApplyScope } from '../plan/scope';
import type { StudySchedule } from '../plan/schedule';
import type { TargetGroupChecks } from '../plan/server-checks';
import type { ObservedStudy, StudyPlan } from '../plan/types';
import { PayloadDecryptionError } from '../temporal/payload-codec';
import { knownFromStatus, statusQuery, studyWorkflowId, type StudyStatus } from '../workflows/messages';
import type { PlanApi } from './plan-api';
import type { PreparedStudy } from './prepare-studies';
import type { TemporalSession } from './temporal-session';

/** The plan of one study: the actions, the schedule apply follows, and the server checks (or why there are none). */
export interface PlannedStudy extends PreparedStudy {
  plan: StudyPlan;
  schedule: StudySchedule;
  /** The steps apply runs (plan/program.ts), as the study workflow programs them. */
  program: StudyProgram;
  checks: TargetGroupChecks[];
  /** The study's forecast before launch from the checks' (plan/forecast.ts), when some target group has one. */
  forecast?: StudyForecast;
  /** Why the checks were skipped, when they were. */
  checksNote?: string;
  /** What the plan was made against, when not the API (offline, or the API out of reach). */
  note?: string;
  /** What the API held when planned (a plan file fingerprints it: client/plan-file.ts). */
  observed: ObservedStudy;
  /** The close-out, when the study has one: its plan (plan/closeout.ts) and each block in words, or why there is none. */
  closeout?: { plan?: CloseoutPlan; blocks: string[]; note?: string };
}

export interface StudiesPlan {
  offline: boolean;
  /** Why the API could not be reached, when it could not: the studies from then on are planned without it. */
  apiUnreachable?: string;
  studies: PlannedStudy[];
  /** What `plan --detailed-exitcode` answers for these plans and their server checks (plan/exit-code.ts): 0, 2 pending, 3 blocked. */
  detailedExitCode: number;
}

const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

/** What a close-out adds to `plan --detailed-exitcode`: 3 when it is blocked, 2 when it would submit or archive. */
function closeoutExitCode(plan: CloseoutPlan | undefined): number {
  if (!plan) return 0;
  return plan.blocks.length ? 3 : plan.steps.length ? 2 : 0;
}

/** The close-out's plan against the exchange (client/plan-closeout.ts through the plan's API), or why there is none. */
async function closeoutOf(api: PlanApi | undefined, env: NodeJS.ProcessEnv, study: PreparedStudy, observed: ObservedStudy, status: StudyStatus | undefined): Promise<PlannedStudy['closeout']> {
  if (!api) return { blocks: [], note: 'not planned: the API is not asked (offline or out of reach)' };
  const targetGroups: Record<string, { key: string; status: string }> = {};
  for (const [key, tg] of Object.entries(observed.targetGroups)) targetGroups[tg.id] = { key, status: status?.targetGroups[key]?.phase ?? tg.status ?? 'unknown' };
  const archived = CLOSEOUT_REPORT_TYPES.filter((r) => status?.closeout?.archives[r] !== undefined);
  const { plan, note } = await api.closeout(study.desired, { projectId: observed.project?.id, targetGroups, archivedReports: archived }, blobStoreFromEnv(env, { maxIds: MAX_REVERSAL_ROWS }));
  return { ...(plan ? { plan } : {}), blocks: plan ? plan.blocks.map(closeoutBlockText) : [], ...(note ? { note } : {}) };
}

/** What the study workflows remember (remote IDs, uploaded recontact lists), when Temporal is reachable. */
async function knownFromWorkflows(temporal: TemporalSession, ids: { accountId: string; studyId: string }[]): Promise<Map<string, StudyStatus>> {
  const known = new Map<string, StudyStatus>();
  // A workflow that answers in payloads this process cannot decrypt is a settings error, not an
  // absent workflow: planning without what it remembers could show creates that are not.
  const unreadable = (error: unknown) => error instanceof PayloadDecryptionError;
  try {
    const client = await temporal.client();
    for (const { accountId, studyId } of ids) {
      const id = studyWorkflowId(accountId, studyId);
      const status = await client.workflow
        .getHandle(id)
        .query(statusQuery)
        .catch((error: unknown) => {
          if (unreadable(error)) throw error;
          return undefined;
        });
      if (status) known.set(id, status);
    }
  } catch (error) {
    if (unreadable(error)) throw error;
    // Temporal is optional for plan: natural keys (customer reference numbers) find the resources too.
  }
  return known;
}

/**
 * Plans each prepared study. Offline: against an empty remote, no API call and no Temporal. Otherwise, with
 * the API out of reach, the plan falls back to the local checks and says so.
 */
export async function planStudies(
  temporal: TemporalSession,
  env: NodeJS.ProcessEnv,
  prepared: PreparedStudy[],
  options: { offline?: boolean; now?: () => number; scope?: ApplyScope } = {},
): Promise<StudiesPlan> {
  const offline = Boolean(options.offline);
  const now = options.now ?? Date.now;
  let note = offline ? 'offline: planned against an empty remote, no API calls' : undefined;
  const known = offline ? new Map<string, StudyStatus>() : await knownFromWorkflows(temporal, prepared.map((p) => p.desired));
  // The API, loaded only when the plan reaches it (the API client).
  const api = offline ? undefined : (await import('./plan-api')).openPlanApi(env);
  let unreachable: string | undefined;
  const studies: PlannedStudy[] = [];
  for (const study of prepared) {
    const { desired } = study;
    let observed = EMPTY;
    let checks: TargetGroupChecks[] = [];
    let checksNote: string | undefined = 'skipped (offline): planned from the local checks alone';
    const status = known.get(studyWorkflowId(desired.accountId, desired.studyId));
    if (api && !unreachable) {
      try {
        observed = await api.observe(desired, knownFromStatus(status));
      } catch (error) {
        if (!api.isUnreachable(error)) throw error;
        unreachable = api.failureReason(error);
        note = `the API cannot be reached (${unreachable}): planned against an empty remote from the local checks alone`;
      }
    }
    // What the plan takes besides desired and observed, derived as the study workflow derives it (plan/revision-inputs.ts):
    // the target groups whose workflow runs already (they take the revision themselves), the budget's hold (it keeps
    // the target groups the study paused from being resumed) and the launches ahead, whose server checks are asked.
    const revision = revisionInputs(desired, observed, status);
    if (api && !unreachable) {
      checks = await api.serverChecks(desired, observed, revision.launchAhead, { now: now() });
      checksNote = undefined;
    } else if (unreachable) {
      checksNote = 'skipped: the API cannot be reached';
    }
    // The budget against feasibility's prices (plan/budget.ts): over budget, the plan launches nothing and blocks, as apply does.
    const prices = desired.budget ? budgetInputsFromChecks(desired, checksNote ? undefined : checks, checksNote) : undefined;
    const planned = planRevision(desired, observed, revision.running, undefined, revisionBudgetFrom(revision, prices), options.scope);
    // A live change's feasibility check, answered now as the workflow will ask it before the write.
    const answered = api && !unreachable ? await api.liveChecks(desired, observed, planned.plan) : planned.plan;
    // The budget's warnings: prices in another currency (never judged), a budget at or below the spend so far (pauses the live ones).
    const live = Object.values(status?.targetGroups ?? {}).filter((tg) => tg.phase === 'live').map((tg) => tg.key);
    const budgetWarnings = budgetNotes(desired.budget, answered.budget, status?.budget?.spent, live, Boolean(status?.budget?.reached));
    const plan = budgetWarnings.length ? { ...answered, notes: [...(answered.notes ?? []), ...budgetWarnings] } : answered;
    // Target groups launched already have no forecast check: the forecast their workflow's status shows (the one function).
    const forecast = studyForecastFromChecks(checks, Object.fromEntries(Object.entries(status?.targetGroups ?? {}).map(([key, tg]) => [key, tg.forecast])));
    const closeout = desired.closeout ? await closeoutOf(api && !unreachable ? api : undefined, env, study, observed, status) : undefined;
    studies.push({ ...study, plan, schedule: planned.schedule, program: planned.program, checks, ...(forecast ? { forecast } : {}), checksNote, note, observed, ...(closeout ? { closeout } : {}) });
  }
  const detailedExitCode = Math.max(
    planExitCode(studies.map((s) => s.plan), studies.flatMap((s) => s.checks)),
    ...studies.map((s) => closeoutExitCode(s.closeout?.plan)),
  );
  return { offline, ...(unreachable ? { apiUnreachable: unreachable } : {}), studies, detailedExitCode };
}
