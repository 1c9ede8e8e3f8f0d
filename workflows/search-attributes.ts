import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { TargetGroupPhase } from './messages';

// Typed search attributes of studyflow's workflows. Values are business identifiers (study id, account id,
// target-group key, phase, git revision), reason codes, figures and dates: never names of people, tokens or
// respondent IDs.
export const STUDY_ID = defineSearchAttributeKey('StudyflowStudy', SearchAttributeType.KEYWORD);
export const ACCOUNT_ID = defineSearchAttributeKey('StudyflowAccount', SearchAttributeType.KEYWORD);
export const TARGET_GROUP_KEY = defineSearchAttributeKey('StudyflowTargetGroup', SearchAttributeType.KEYWORD);
export const PHASE = defineSearchAttributeKey('StudyflowPhase', SearchAttributeType.KEYWORD);
/** The values StudyflowPhase takes on a target group's workflow: every phase of workflows/phases.ts (a test holds them equal). */
export const TARGET_GROUP_PHASES = [
  'drafting',
  'draft',
  'uploading',
  'checking_feasibility',
  'awaiting_approval',
  'awaiting_completes',
  'gate_blocked',
  'scheduled',
  'launching',
  'live',
  'paused',
  'completed',
  'failed',
] as const satisfies readonly TargetGroupPhase[];
/** The workflow type of a target group's workflow (workflows/target-group-workflow.ts; a test holds it equal). */
export const TARGET_GROUP_WORKFLOW_TYPE = 'targetGroupWorkflow';
export const GIT_REVISION = defineSearchAttributeKey('StudyflowRevision', SearchAttributeType.KEYWORD);
/** The Demand API's id of the target group a child workflow manages (webhook deliveries are routed by it). */
export const REMOTE_TARGET_GROUP_ID = defineSearchAttributeKey('StudyflowTargetGroupId', SearchAttributeType.KEYWORD);


// The operator's console (target-group workflows; workflows/target-group/console.ts sets them when they change).
// Numbers and dates are typed, so list queries compare them (`StudyflowFillPercent < 50`).
/** Why the target group is held or flagged: `guard:<kind>`, `gate_blocked:<code>`, `failed:<type>`, `drift:<field>`; absent when nothing. */
export const REASON = defineSearchAttributeKey('StudyflowReason', SearchAttributeType.KEYWORD);
/** completes / filling_goal × 100 of the latest performance reading (one decimal). */
export const FILL_PERCENT = defineSearchAttributeKey('StudyflowFillPercent', SearchAttributeType.DOUBLE);
/** completes_cost of the latest performance reading, in StudyflowCurrency. */
export const SPEND = defineSearchAttributeKey('StudyflowSpend', SearchAttributeType.DOUBLE);
/** The currency of StudyflowSpend (ISO 4217 code). */
export const CURRENCY = defineSearchAttributeKey('StudyflowCurrency', SearchAttributeType.KEYWORD);
/**
 * The forecast's expected finish (plan/forecast.ts forecastTargetGroup, as `status` shows it), to the hour: when it
 * completed once completed, from its launch moment before launch; absent without a finish (paused, awaiting a staged
 * launch's completes, nothing known yet).
 */
export const FORECAST_END = defineSearchAttributeKey('StudyflowForecastEnd', SearchAttributeType.DATETIME);
/** end_fielding_at as the study file states it; absent when the file states none. */
export const END_FIELDING_AT = defineSearchAttributeKey('StudyflowEndFieldingAt', SearchAttributeType.DATETIME);

/** The types a namespace registers them as (the names `temporal operator search-attribute create --type` takes). */
export type SearchAttributeTypeName = 'Keyword' | 'Double' | 'Datetime';

/** Registered with the dev server (`--search-attribute NAME=TYPE`), checked by the worker and documented for clusters. */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, SearchAttributeTypeName> = {
  StudyflowStudy: 'Keyword',
  StudyflowAccount: 'Keyword',
  StudyflowTargetGroup: 'Keyword',
  StudyflowPhase: 'Keyword',
  StudyflowRevision: 'Keyword',
  StudyflowTargetGroupId: 'Keyword',
  StudyflowReason: 'Keyword',
  StudyflowFillPercent: 'Double',
  StudyflowSpend: 'Double',
  StudyflowCurrency: 'Keyword',
  StudyflowForecastEnd: 'Datetime',
  StudyflowEndFieldingAt: 'Datetime',
};
