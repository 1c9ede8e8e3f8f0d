// The plan's server-side dry run, asked: per target group, profile validation, feasibility, price
// prediction, supplier quota distribution, the intelligent calendar and the question texts, each a plain operation
// of api/operations/ over the study's caller (no workflow, no activity). A call that fails becomes
// "unavailable: <reason>"; the judging is plan/server-checks.ts.
import { ApplicationFailure } from '@temporalio/common';
import { apiFailureDetails, ApiFailureType, invalidInputFailure } from '../api/http/errors';
import type { ApiCaller } from '../api/operations/caller';
import { suggestDays, suggestTimeRange } from '../api/operations/calendar';
import { calculateFeasibility, generatePricePrediction } from '../api/operations/feasibility';
import { liveFeasibility } from '../api/operations/live-target-groups';
import { getQuestionTexts, requireProfileShapesVersion, supplierQuotaDistribution, validateProfiles } from '../api/operations/profiles';
import { judgeLiveGate, liveGateLine } from '../plan/live-gates';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy, PlannedAction, StudyPlan } from '../plan/types';
import {
  calendarDays,
  distributionRequests,
  evaluateServerChecks,
  feasibilityCheckRequest,
  gateCpi,
  priceCheckQuery,
  profileQuestionIds,
  readQuestions,
  skippedServerChecks,
  suggestDaysRequest,
  validationRequest,
  type Answer,
  type ServerAnswers,
  type TargetGroupChecks,
} from '../plan/server-checks';

const MAX_REASON_CHARS = 300;

/** A failed call as one line: `HTTP 401 unauthorized: …` or `network_error: …`. Never a stack trace. */
export function failureReason(error: unknown): string {
  const details = apiFailureDetails(error);
  let reason: string;
  if (error instanceof ApplicationFailure && details) {
    const params = details.invalid_params?.length ? ` (${details.invalid_params.map((p) => `${p.name}: ${p.reason}`).join('; ')})` : '';
    reason = details.status !== undefined
      ? `HTTP ${details.status} ${details.object ?? error.type ?? 'error'}${details.detail ? `: ${details.detail}` : ''}${params}`
      : `${error.type ?? 'error'}: ${details.detail ?? error.message}`;
  } else if (error instanceof ApplicationFailure) {
    reason = `${error.type ?? 'error'}: ${error.message}`;
  } else {
    reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

/** True when the error says the API could not be reached at all (no answer), not that it refused. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ApplicationFailure && (error.type === ApiFailureType.networkError || error.type === ApiFailureType.requestTimeout);
}

async function attempt<T>(call: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, reason: failureReason(error) };
  }
}

/** The locale the calendar and the question texts are asked in; none is refused as the operation's input, before the call. */
function localeFor(operation: string, locale: string): string {
  if (locale.trim() === '') throw invalidInputFailure(operation, 'locale is missing');
  return locale;
}

/** Asks the API everything the checks of one draft target group need. */
export async function askServer(caller: ApiCaller, businessUnitId: string, desired: DesiredTargetGroup, now: number): Promise<ServerAnswers> {
  const validation = validationRequest(desired);
  const distribution = distributionRequests(desired, now);
  const questionIds = profileQuestionIds(desired);
  const locale = String(desired.draft.locale ?? '');
  const [validated, feasibility, price, distributed, questions] = await Promise.all([
    validation
      ? attempt(async () => {
          requireProfileShapesVersion('validateProfiles', caller.apiVersion);
          return await validateProfiles(caller, validation);
        })
      : undefined,
    attempt(async () => await calculateFeasibility(caller, feasibilityCheckRequest(desired, businessUnitId, now))),
    attempt(async () => await generatePricePrediction(caller, { businessUnitId, config: priceCheckQuery(desired) })),
    distribution.length
      ? attempt(async () => {
          requireProfileShapesVersion('supplierQuotaDistribution', caller.apiVersion);
          return await Promise.all(distribution.map(async (request) => (await supplierQuotaDistribution(caller, request)) as Record<string, unknown>));
        })
      : undefined,
    questionIds.length
      ? attempt(async () => readQuestions(await getQuestionTexts(caller, { locale: localeFor('getQuestionTexts', locale), questionIds })))
      : undefined,
  ]);
  const answers: ServerAnswers = { validation: validated, feasibility, price, distribution: distributed, questions };
  const days = suggestDaysRequest(desired, gateCpi(answers, desired));
  if ('request' in days) answers.suggestedDays = await attempt(async () => await suggestDays(caller, days.request));
  const span = calendarDays(answers.suggestedDays);
  answers.timeRange = await attempt(async () => await suggestTimeRange(caller, { locale: localeFor('suggestTimeRange', locale), days: span }));
  return answers;
}

/**
 * The server checks of every target group of a study: those whose launch is ahead (`launchAhead`, plan/revision-inputs.ts,
 * as the study workflow reads their launch gates) are asked; one the API already holds past draft has none and is skipped.
 */
export async function runServerChecks(
  caller: ApiCaller,
  desired: DesiredStudy,
  observed: ObservedStudy,
  launchAhead: readonly string[],
  options: { now: number },
): Promise<TargetGroupChecks[]> {
  const results: TargetGroupChecks[] = [];
  for (const tg of desired.targetGroups) {
    if (!launchAhead.includes(tg.key)) {
      const remote = observed.targetGroups[tg.key] ?? (tg.movedFrom ? observed.targetGroups[tg.movedFrom] : undefined);
      results.push(skippedServerChecks(tg.key, `already ${remote?.status}: no launch ahead to check`));
      continue;
    }
    const answers = await askServer(caller, desired.businessUnitId, tg, options.now);
    results.push(evaluateServerChecks(tg, answers, { now: options.now }));
  }
  return results;
}

/**
 * The answer to each live change's feasibility check, asked now (calculate_target_group_feasibility_by_id) and
 * judged by the launch gate's rules (plan/live-gates.ts), as the target group's workflow will judge it before the
 * write: each `check` action of the plan gets the answer in its reason ("raising filling_goal 200 -> 300: feasible
 * (up to 420 completes), suggested price 4.10 USD; may be written"), or why there is none.
 */
export async function answerLiveChecks(caller: ApiCaller, desired: DesiredStudy, observed: ObservedStudy, plan: StudyPlan): Promise<StudyPlan> {
  const actions: PlannedAction[] = [];
  for (const action of plan.actions) {
    const tg = desired.targetGroups.find((t) => t.key === action.key);
    const remote = observed.targetGroups[action.key];
    if (action.kind !== 'check' || !action.gate || !tg || !remote || !observed.project) {
      actions.push(action);
      continue;
    }
    try {
      const answer = await liveFeasibility(caller, { projectId: observed.project.id, targetGroupId: remote.id }, action.gate.request);
      const judged = judgeLiveGate(tg, action.gate, {
        suggested_price: answer.suggestedPrice,
        ...(answer.completesGoalRange ? { suggested_completes_goal_range: answer.completesGoalRange } : {}),
      });
      actions.push({ ...action, reason: liveGateLine(judged) });
    } catch (error) {
      actions.push({ ...action, reason: `${action.reason}; feasibility unavailable: ${failureReason(error)}` });
    }
  }
  return { ...plan, actions };
}
