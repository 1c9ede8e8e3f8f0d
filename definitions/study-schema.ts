// The study model. These zod schemas are the single source of truth: the JSON Schema in
// schema/*.schema.json is generated from the *file* schemas below, and the typed `Study` the
// planner works on is the *resolved* schema (defaults merged, templates expanded, paths absolute).
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../shared/api-profile';
import { NOTIFY_EVENTS } from '../shared/notify-events';
import { NotifyBlockSchema } from './notify-targets';

export const FORMAT_VERSION = 'studyflow/v1';
import { API_VERSIONS, CURRENT_API_VERSION } from '../shared/api-version';
import { RESPONDENT_STATUSES } from '../shared/respondent-status';
import { CLOSEOUT_REPORT_TYPES } from '../shared/closeout-reports';

export { API_VERSIONS, CURRENT_API_VERSION, type ApiVersion } from '../shared/api-version';
/** The fielding state a study file declares for a target group (default live). */
export const FIELDING_STATES = ['live', 'paused', 'completed'] as const;
/** What apply does with a target group the study manages and the file no longer declares (default keep). */
export const REMOVED_TARGET_GROUP_POLICIES = ['keep', 'complete'] as const;
export { RESPONDENT_STATUSES };
export const PRICING_MODELS = ['rate_card', 'dynamic'] as const;
export const TARGET_GROUP_TYPES = ['rate_card', 'custom'] as const;
export const KNOWN_STUDY_TYPES = ['adhoc', 'tracker', 'recontact'] as const;
/** Every webhook event name some connection profile speaks (shared/api-profile.ts; which profile takes which: SF4304). */
export const KNOWN_WEBHOOK_EVENTS: readonly string[] = [...new Set(Object.values(WEBHOOK_EVENTS).flat())];
/** The file name of a directory's shared definitions. */
export const SHARED_FILE_NAMES = ['shared.yaml', 'shared.yml'] as const;

/** A string with a pattern; the message is what editors and `studyflow validate` say when it does not match. */
const patterned = (pattern: RegExp, message: string, description: string) =>
  z.string().regex(pattern).meta({ description, patternErrorMessage: message });

export const STUDY_ID_PATTERN = /^[a-z0-9][a-z0-9-]{2,62}$/;
export const LOCAL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const ISO_PERIOD_PATTERN = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?$/;
export const TIMING_DURATION_PATTERN = /^(\d+)(ms|s|m|h)$/;
/** An ISO-8601 duration in weeks, days, hours, minutes and seconds (`P2D`, `PT36H`, `P1DT12H`, `P1W`); no years or months. */
export const GUARD_DURATION_PATTERN = /^P(?=\d|T\d)(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
/** What a guard does when it trips: pause the target group (the default), or only tell the `notify:` targets. */
export const GUARD_ACTIONS = ['pause', 'notify'] as const;
/** The kinds of guard: each is one field of a guard, with its threshold as the value. */
export const GUARD_KINDS = ['incidence_below', 'cost_per_complete_above', 'spend_above', 'no_completes_for', 'drop_off_above', 'quota_behind'] as const;
/** Entrants a rate guard waits for when it names no min_entrants. */
export const DEFAULT_GUARD_MIN_ENTRANTS = 100;
/** Completes of the target group before `quota_behind` judges, when it names no min_completes. */
export const DEFAULT_QUOTA_MIN_COMPLETES = 30;
/** A percentage as text: `5%`, `12.5%` (whether it is at most 100 is a rule, SF4511, so the error names the value). */
export const PERCENT_TEXT_PATTERN = /^\d{1,6}(\.\d{1,4})?%$/;
/** What a soft launch's outcome does: promote (lift it to the full goal) or pause the target group. */
export const SOFT_LAUNCH_ACTIONS = ['promote', 'pause'] as const;
/** The least completes a soft launch judges on at its end, when its analysis names no min_completes (capped at its completes). */
export const DEFAULT_SOFT_LAUNCH_MIN_COMPLETES = 30;

const LOCAL_NAME_MESSAGE = 'a lowercase name of letters, digits, _ and - (at most 63), such as us_gen_pop';
const localName = (description: string) => patterned(LOCAL_NAME_PATTERN, LOCAL_NAME_MESSAGE, description);
const remoteId = (description: string) =>
  patterned(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'an ID such as "1001" (quote numbers so YAML keeps them as text)', description);
const text = (description: string) => z.string().min(1).meta({ description });
const httpUrl = (description: string) => patterned(/^https?:\/\/[^\s/?#]+[^\s]*$/, 'an http:// or https:// URL without spaces', description);
const isoPeriod = (description: string) =>
  patterned(ISO_PERIOD_PATTERN, 'a date-only ISO-8601 period such as P30D, P2W, P3M or P1Y', description);
const timingDuration = (description: string) =>
  patterned(TIMING_DURATION_PATTERN, 'a duration such as 500ms, 1s, 30m or 2h', description);
/** The reference's UserID: a UUID. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const projectManagerId = (description: string) =>
  patterned(UUID_PATTERN, 'a user id in UUID form such as 6f1c2a4e-3001-4c8e-9d2b-000000003001', description);
/** The reference's pattern for customer reference numbers. */
export const CUSTOMER_REFERENCE_PATTERN = /^[a-zA-Z0-9\-_ ]*$/;
const percentText = (description: string) => patterned(PERCENT_TEXT_PATTERN, 'a percentage such as 5% or 12.5%', description);
const guardDuration = (description: string) =>
  patterned(GUARD_DURATION_PATTERN, 'an ISO-8601 duration of weeks, days, hours, minutes or seconds, such as P2D, PT36H or P1DT12H', description);
const isoTimestamp = (description: string) =>
  z.iso.datetime({ offset: true }).meta({ description, patternErrorMessage: 'an ISO-8601 timestamp such as 2026-12-20T00:00:00Z' });
const questionId = z.number().int().min(1).max(2_147_483_647).meta({ description: 'Question id of the Demand API question library.' });

export const MoneySchema = z
  .strictObject({
    value: patterned(/^(?=[0-9.]*[1-9])\d+(\.\d{1,6})?$/, 'a decimal string greater than 0, such as "4.50"', 'Amount as a decimal string.'),
    currency_code: patterned(/^[A-Z]{3}$/, 'a three-letter ISO-4217 code such as USD', 'Currency code.'),
  })
  .meta({ id: 'Money', description: 'An amount of money: `{value: "4.50", currency_code: USD}`.' });

export const LaunchAfterSchema = z
  .strictObject({
    target_group: localName('Local key of another target group of this study.'),
    completes: z.number().int().min(1).meta({ description: 'Completes that target group must have, at least 1.' }),
  })
  .meta({ id: 'LaunchAfter', description: 'A staged launch: wait until another target group has N completes.' });

export const LaunchRulesSchema = z
  .strictObject({
    mode: z
      .enum(['auto', 'manual'])
      .default('manual')
      .meta({ description: 'auto: launch once the gates pass; manual: wait for `studyflow approve`.' }),
    require_feasible: z
      .boolean()
      .default(true)
      .meta({ description: 'Launch only when feasibility says the filling goal can be reached (at most the max of its suggested completes range).' }),
    max_cpi: MoneySchema.optional().meta({ description: 'Launch only when the price feasibility suggests (cost per interview) is at most this.' }),
    calendar: z.enum(['suggest', 'none']).default('none').meta({ description: 'suggest: ask the intelligent calendar for a fielding window.' }),
    at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({
        description: 'Launch at this moment (an ISO-8601 timestamp with its zone offset or Z): the exchange schedules the fielding run from the draft.',
        patternErrorMessage: 'an ISO-8601 timestamp with its zone, such as 2026-12-07T08:00:00-05:00 or 2026-12-07T13:00:00Z',
      }),
    after: LaunchAfterSchema.optional().meta({ description: 'Hold the launch until another target group of the study has this many completes.' }),
    require_forecast_before_end: z.boolean().default(false).meta({
      description: 'Launch only when the forecast (feasibility and the calendar) finishes the filling goal before end_fielding_at.',
    }),
  })
  .meta({ id: 'LaunchRules', description: 'When and how a target group is put into fielding.' });

export const GuardSchema = z
  .strictObject({
    incidence_below: z.number().gt(0).lt(1).optional().meta({
      description: 'Trips when the incidence rate is below this fraction of expected_incidence_rate (0 < x < 1), once min_entrants have entered.',
    }),
    cost_per_complete_above: MoneySchema.optional().meta({ description: 'Trips when the cost per complete so far (completes_cost / completes) is above this.' }),
    spend_above: MoneySchema.optional().meta({ description: 'Trips when the spend so far (completes_cost) is above this.' }),
    no_completes_for: patterned(
      GUARD_DURATION_PATTERN,
      'an ISO-8601 duration of weeks, days, hours, minutes or seconds, such as P2D, PT36H or P1DT12H',
      'Trips when a live target group has had no complete for this long (counted from the launch or resume when it has none yet).',
    ).optional(),
    drop_off_above: z.number().gt(0).lt(1).optional().meta({ description: 'Trips when the drop-off rate is above this (0 < x < 1), once min_entrants have entered.' }),
    quota_behind: z
      .strictObject({
        shortfall_above: percentText('Trips when a quota is forecast to miss more than this share of its goal by the end date, e.g. 10%.'),
        min_completes: z.number().int().min(1).optional().meta({ description: `Completes of the target group before it judges (default ${DEFAULT_QUOTA_MIN_COMPLETES}).` }),
      })
      .optional()
      .meta({ id: 'QuotaBehind', description: 'Trips when a quota\'s completes, forecast at the target group\'s pace to the end date, fall short of its goal by more than shortfall_above.' }),
    min_entrants: z.number().int().min(1).optional().meta({
      description: `Entrants before incidence_below or drop_off_above judge (default ${DEFAULT_GUARD_MIN_ENTRANTS}).`,
    }),
    action: z.enum(GUARD_ACTIONS).default('pause').meta({ description: 'pause (the default): pause the target group and wait for `studyflow approve --resume`; notify: only send guard_tripped.' }),
  })
  .meta({ id: 'Guard', description: 'A rule over the readings of a live target group: exactly one of its kinds, with its threshold.' });

/** Guards by name; `false` switches off a guard of the same name from the level above. */
export const GuardsSchema = z
  .record(localName('Guard name.'), z.union([GuardSchema, z.literal(false)]))
  .meta({ description: 'Guards by name: a target group\'s override those of defaults, which override the study\'s; `false` switches one off.' });

export const TimingSchema = z
  .strictObject({
    job_poll_initial: timingDuration('Time from the first poll of an upload or launch job to the second (the first is at once); later intervals grow by half.').default('1s'),
    job_poll_max: timingDuration('Longest interval between two polls of a job.').default('30s'),
    job_timeout: timingDuration('A job that is still processing after this fails the target group.').default('30m'),
    launch_retries: z.number().int().min(0).max(100).default(5).meta({ description: 'Attempts to launch before giving up.' }),
  })
  .meta({ id: 'Timing', description: 'Job polling and retries of one target group.' });

const RESPONDENT_STATUS = z.enum(RESPONDENT_STATUSES);

export const ActivityExclusionItemSchema = z
  .strictObject({
    target_group: localName('Local key of another target group of this study.').optional(),
    target_group_id: remoteId('Remote id of a target group not managed by this study.').optional(),
    project: remoteId('Remote id of a project, or `self` for this study\'s own project.').optional(),
    respondent_statuses: z
      .array(RESPONDENT_STATUS)
      .min(1)
      .refine((a) => new Set(a).size === a.length)
      .default(['Complete'])
      .meta({ uniqueItems: true, description: 'Statuses whose respondents are excluded (statuses other than Complete need the account feature).' }),
    duration: isoPeriod('Look-back window of this item, 1 to 396 days.').optional(),
  })
  .meta({ id: 'ActivityExclusionItem', description: 'Exclude respondents who took part in a target group or project.' });

export const ActivityExclusionsSchema = z
  .strictObject({
    duration: isoPeriod('Request-level look-back window for items without their own.').optional(),
    items: z.array(ActivityExclusionItemSchema).min(1),
  })
  .meta({ id: 'ActivityExclusions', description: 'Respondent activity exclusions (rolling windows over participation history).' });

export const IdListFileSchema = z
  .strictObject({ file: text('Path of the ID list, relative to the file that names it.') })
  .meta({ id: 'IdListFile', description: 'A text file with one ID per line, no header.' });

export const ExclusionsSchema = z
  .strictObject({
    respondent_ids: IdListFileSchema.optional().meta({ description: 'RSIDs to exclude.' }),
    respondent_guids: IdListFileSchema.optional().meta({ description: 'ACCESS_RESPONDENT_GUIDs to exclude.' }),
    exclusion_groups: z
      .array(localName('Name of an exclusion group of this study or of shared.yaml.'))
      .refine((a) => new Set(a).size === a.length)
      .meta({ uniqueItems: true })
      .optional(),
    activity: ActivityExclusionsSchema.optional(),
  })
  .meta({ id: 'Exclusions', description: 'Every way of keeping respondents out of a target group.' });

const SelectionConditionSchema = z
  .strictObject({ object: z.literal('selection'), question_id: questionId, option: text('Answer option (its id as text).') })
  .meta({ id: 'SelectionCondition', description: 'The respondent chose this option.' });
const RangeConditionSchema = z
  .strictObject({
    object: z.literal('range'),
    question_id: questionId,
    min: z.number().int().min(1).max(99),
    max: z.number().int().min(1).max(99),
  })
  .meta({ id: 'RangeCondition', description: 'A whole-number answer between min and max, inclusive, each 1 to 99 (e.g. age 18-34).' });
/** At most this many open-ended values in one condition (the reference's maxItems). */
export const MAX_OPEN_ENDED_VALUES = 10_000;
const OpenEndedConditionSchema = z
  .strictObject({
    object: z.literal('open_ended'),
    question_id: questionId,
    allow_all_values: z.boolean().meta({ description: 'true: any answer qualifies (open_ended_values empty or null); false: only the answers in open_ended_values.' }),
    open_ended_values: z
      .array(patterned(/^\S(.*\S)?$/, 'an answer without leading or trailing spaces', 'A free-text answer, or a zip or postal code of the postal-code question.'))
      .max(MAX_OPEN_ENDED_VALUES)
      .nullable()
      .meta({ description: 'The answers that qualify (1 to 10,000) when allow_all_values is false; empty or null when it is true.' }),
  })
  .meta({
    id: 'OpenEndedCondition',
    description: 'Answers to an open-ended question, zip or postal codes included (the postal-code question is open-ended): every answer, or the ones listed.',
  });
export const ConditionSchema = z
  .discriminatedUnion('object', [SelectionConditionSchema, RangeConditionSchema, OpenEndedConditionSchema])
  .meta({ id: 'Condition', description: 'A condition on one question: selection, range or open_ended.' });

export const QuotaSchema = z
  .strictObject({
    name: text('Names the quota for tracking.'),
    completes_goal: z.number().int().min(0).optional().meta({ description: 'Completes wanted in this target.' }),
    completes_goal_percentage: z.number().gt(0).max(100).optional().meta({ description: 'Share of the filling goal, in percent.' }),
  })
  .meta({ id: 'Quota', description: 'A goal for one target: completes_goal or completes_goal_percentage.' });

export const TargetSchema = z
  .strictObject({
    text: text('Label of the target, for your own reading (shown by `studyflow plan`; not sent).').optional(),
    conditions: z.array(ConditionSchema).min(1),
    quota: QuotaSchema.optional(),
  })
  .meta({ id: 'Target', description: 'Links conditions and a quota.' });

export const ProfileSchema = z
  .strictObject({
    object: z.enum(['regular', 'blended']).meta({
      description: 'regular: one question, or several open-ended questions grouped in its targets; blended: targets combine several questions.',
    }),
    blended_type: z.enum(['interlock', 'control']).optional().meta({ description: 'A blended profile only: interlock (the default) or control.' }),
    name: text('Profile name.'),
    description: text('Question text, for your own reading (shown by `studyflow plan`; not sent).').optional(),
    quotas_enabled: z.boolean().default(false),
    targets: z.array(TargetSchema).min(1),
  })
  .meta({ id: 'Profile', description: 'Profiling in the 2025-12-18 shape.' });

export const ProfileTemplateRefSchema = z
  .union([
    localName('Name of a template under profile_templates (this file or shared.yaml).'),
    z.strictObject({
      id: patterned(UUID_PATTERN, 'a profile template id in UUID form such as 0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02', 'Id of a profile template in the API (the reference\'s template_id, a UUID).'),
    }),
  ])
  .meta({ id: 'ProfileTemplateRef', description: 'A template name, or `{id: …}` for a template that exists in the API.' });

const percentage = (description: string) => z.number().int().min(0).max(100).meta({ description });
const supplierIds = (description: string) =>
  z.array(text('Supplier id.')).refine((a) => new Set(a).size === a.length).meta({ uniqueItems: true, description });

export const OpenExchangeAllocationsSchema = z
  .strictObject({
    exchange_min_percentage: percentage('Least share of completes from the open exchange, in percent.').default(0),
    exchange_max_percentage: percentage('Largest share of completes from the open exchange, in percent.').default(100),
    blocked_supplier_ids: supplierIds('Suppliers that may not deliver.').default([]),
    groups: z
      .array(
        z
          .strictObject({
            group_name: text('Name of the supplier group.'),
            min_percentage: percentage('Least share of completes from the group, in percent.'),
            max_percentage: percentage('Largest share of completes from the group, in percent.'),
            suppliers: supplierIds('The suppliers of the group.'),
          })
          .meta({ id: 'OpenExchangeAllocationGroup', description: 'A group of open-exchange suppliers with its share of completes.' }),
      )
      .default([]),
  })
  .meta({ id: 'OpenExchangeAllocations', description: 'How completes are spread over the open exchange (the API\'s open_exchange_allocations).' });

export const PrivateExchangeAllocationsSchema = z
  .strictObject({
    blocked_supplier_ids: supplierIds('Suppliers that may not deliver.').default([]),
    groups: z
      .array(
        z
          .strictObject({
            group_name: text('Name of the group.'),
            min_percentage: percentage('Least share of completes from the supplier, in percent.'),
            max_percentage: percentage('Largest share of completes from the supplier, in percent.'),
            supplier_id: text('The private-exchange supplier.'),
          })
          .meta({ id: 'PrivateExchangeAllocationGroup', description: 'One private-exchange supplier with its share of completes.' }),
      )
      .default([]),
  })
  .meta({ id: 'PrivateExchangeAllocations', description: 'Private-exchange suppliers (the API\'s private_exchange_allocations).' });

export const AllocationsSchema = z
  .strictObject({
    open_exchange_allocations: OpenExchangeAllocationsSchema.prefault({}),
    private_exchange_allocations: PrivateExchangeAllocationsSchema.optional(),
  })
  .meta({ id: 'Allocations', description: 'Where completes come from. Default: the whole open exchange (0 to 100 percent, no blocked suppliers, no groups).' });

export const FieldingAssistantSchema = z
  .strictObject({
    pricing: z.looseObject({ type: z.enum(['dynamic', 'rate_card']) }).nullable().optional().meta({ description: 'Pricing module, e.g. `{type: dynamic, maximum_cpi: {value: "4.50", currency_code: USD}}`.' }),
    quota_overlay: z
      .strictObject({ prevent_overfill: z.boolean(), balance_fill: z.boolean() })
      .optional()
      .meta({ description: 'Quota overlay module.' }),
    pacing: z.looseObject({ type: z.enum(['linear', 'adaptive', 'gemini']) }).nullable().optional().meta({ description: 'Pacing module, e.g. `{type: linear, increment_interval: …}`.' }),
    soft_launch: z
      .strictObject({
        end_at: isoTimestamp('When the soft launch ends.'),
        filling_goal_percentage: z.number().int().min(1).max(100),
        demographics_strictness_percentage: z.number().int().min(0).max(100),
      })
      .optional()
      .meta({ description: 'Soft launch module.' }),
  })
  .meta({ id: 'FieldingAssistant', description: 'Fielding assistant modules (the API\'s fielding_assistant_assignment). Default: none assigned (`{}`).' });

/** A multiple of what the target group expects (its expected incidence rate or interview length): greater than 0. */
const multiple = (description: string) => z.number().gt(0).max(100).meta({ description });

export const SoftLaunchAnalysisSchema = z
  .strictObject({
    min_completes: z.number().int().min(1).optional().meta({
      description: `Completes below which a soft launch that ran out of time is inconclusive, never a failure (default ${DEFAULT_SOFT_LAUNCH_MIN_COMPLETES}, at most the soft launch's completes).`,
    }),
    incidence: z
      .strictObject({
        fail_below: multiple('Fails when the incidence rate is below this multiple of expected_incidence_rate.').optional(),
        pass_above: multiple('Passes when the incidence rate is at or above this multiple of expected_incidence_rate.').optional(),
      })
      .optional()
      .meta({ id: 'SoftLaunchIncidence', description: 'The incidence rate, as multiples of expected_incidence_rate.' }),
    length_of_interview: z
      .strictObject({
        fail_above: multiple('Fails when the median interview length is above this multiple of expected_length_of_interview_minutes.').optional(),
        fail_below: multiple('Fails when the median interview length is below this multiple of expected_length_of_interview_minutes (speeders).').optional(),
      })
      .optional()
      .meta({ id: 'SoftLaunchLengthOfInterview', description: 'The median length of interview, as multiples of expected_length_of_interview_minutes.' }),
    drop_off: z
      .strictObject({
        fail_above: z.number().gt(0).lt(1).optional().meta({ description: 'Fails when the drop-off rate is above this (0 < x < 1).' }),
        pass_below: z.number().gt(0).lt(1).optional().meta({ description: 'Passes when the drop-off rate is at or below this (0 < x < 1).' }),
      })
      .optional()
      .meta({ id: 'SoftLaunchDropOff', description: 'The drop-off rate, 0 to 1.' }),
  })
  .meta({ id: 'SoftLaunchAnalysis', description: 'The thresholds a soft launch is judged by once its completes are in or its time is up.' });

export const SoftLaunchSchema = z
  .strictObject({
    completes: z
      .union([z.number().int().min(1).meta({ description: 'A number of completes.' }), percentText('A percentage of filling_goal (rounded up to whole completes).')])
      .meta({ description: 'Completes of the soft launch: a number, or a percentage of filling_goal such as 5%.' }),
    max_duration: guardDuration('The longest the soft launch runs (from the launch); judged then with what it has.'),
    demographics_strictness_percentage: z.number().int().min(0).max(100).default(100).meta({
      description: 'Through the fielding assistant: how closely the soft launch follows the full launch\'s demographics, 0 to 100 (default 100).',
    }),
    analysis: SoftLaunchAnalysisSchema.prefault({}),
    on: z
      .strictObject({
        pass: z.enum(SOFT_LAUNCH_ACTIONS).default('promote'),
        fail: z.enum(['pause']).default('pause'),
        inconclusive: z.enum(SOFT_LAUNCH_ACTIONS).default('pause'),
      })
      .prefault({})
      .meta({ id: 'SoftLaunchOn', description: 'What each outcome does: promote (go on to the full filling goal) or pause. Default: pass promotes, fail and inconclusive pause.' }),
    analysis_only: z.boolean().default(false).meta({ description: 'true: judge and notify, never promote or pause.' }),
  })
  .meta({ id: 'SoftLaunch', description: 'Launch to a small share of the goal first, judge incidence, interview length and drop-off, then promote or pause.' });

/** Target-group fields that `defaults` may also set. */
const targetGroupSettings = {
  locale: patterned(/^[a-z]{2,3}_[A-Za-z]{2}$/, 'a locale such as en_US or eng_us (language_COUNTRY)', 'Survey locale.').optional(),
  expected_incidence_rate: z.number().gt(0).max(1).optional().meta({ description: 'Share of entrants who qualify: 0 < x <= 1.' }),
  expected_length_of_interview_minutes: z.number().int().min(1).optional().meta({ description: 'Median interview length in minutes.' }),
  filling_goal: z.number().int().min(1).max(100_000).optional().meta({ description: 'Completes wanted, 1 to 100,000.' }),
  project_manager_id: projectManagerId('Project manager of the target group (a user id, UUID); default: the study\'s project_manager_id.').optional(),
  collects_pii: z.boolean().optional().meta({ description: 'Whether the survey collects personal data.' }),
  study_type: patterned(/^[a-z][a-z0-9_]*$/, 'a lowercase word such as adhoc, tracker or recontact', 'Study type.').optional(),
  pricing_model: z.enum(PRICING_MODELS).optional().meta({ description: 'Pricing model.' }),
  type: z.enum(TARGET_GROUP_TYPES).optional().meta({ description: 'Target group (pricing) type.' }),
  client_cost_per_interview_note: MoneySchema.optional().meta({ description: 'The cost per interview agreed with your client, kept with the target group as a note (not what the exchange charges).' }),
  cost_per_interview: MoneySchema.optional().meta({
    description: 'The cost per interview the exchange pays for the launched target group (update_cost_per_interview); set after the launch.',
  }),
  fielding: z.enum(FIELDING_STATES).optional().meta({
    description: 'live (the default), paused or completed: apply moves the launched target group there and holds it there. Written `live` on a completed target group relaunches it.',
  }),
  start_fielding_at: isoTimestamp('When fielding starts (the draft\'s fielding_specification.start_at); with end_fielding_at, the fielding window.').optional(),
  end_fielding_at: isoTimestamp('When fielding ends (fielding_specification.end_at; the launch sends it as end_fielding_at).').optional(),
  allocations: AllocationsSchema.optional(),
  fielding_assistant_assignment: FieldingAssistantSchema.optional(),
  launch: LaunchRulesSchema.optional(),
  timing: TimingSchema.optional(),
  guards: GuardsSchema.optional(),
  soft_launch: z
    .union([SoftLaunchSchema, z.literal(false)])
    .optional()
    .meta({ description: 'A soft launch before the full launch; `false` on a target group switches off the one of defaults.' }),
};

export const TargetGroupDefaultsSchema = z
  .strictObject(targetGroupSettings)
  .meta({ id: 'TargetGroupDefaults', description: 'Merged into every target group; the target group wins.' });

export const TargetGroupSchema = z
  .strictObject({
    moved_from: localName('The key this target group had before; it is updated, not recreated.').optional(),
    name: z.string().min(5).max(128).meta({ description: 'Target group name, 5 to 128 characters (default: `<study> <key>`).' }).optional(),
    live_url: httpUrl('Survey URL respondents are sent to; required to launch.').optional(),
    test_url: httpUrl('Survey URL for testing.').optional(),
    ...targetGroupSettings,
    profiles: z.array(ProfileSchema).optional(),
    profile_templates: z.array(ProfileTemplateRefSchema).optional(),
    exclusions: ExclusionsSchema.optional(),
    recontact: IdListFileSchema.optional().meta({ description: 'RSIDs to recontact (study_type recontact only).' }),
  })
  .meta({ id: 'TargetGroup', description: 'One unit of fielding; field names are the API\'s 2025-12-18 names.' });

export const ExclusionGroupSchema = z
  .strictObject({
    name: text('Display name sent to the API (default: the key).').optional(),
    target_groups: z
      .array(localName('Local key of a target group of this study.'))
      .refine((a) => new Set(a).size === a.length)
      .meta({ uniqueItems: true })
      .optional(),
  })
  .meta({ id: 'ExclusionGroup', description: 'A respondent who completes one member target group is excluded from the others.' });

export const SharedExclusionGroupSchema = z
  .strictObject({ name: text('Display name sent to the API (default: the key).').optional() })
  .meta({ id: 'SharedExclusionGroup', description: 'An exclusion group target groups of several studies join by name.' });

export const ProfileTemplateSchema = z
  .strictObject({ description: text('What the template is for.').optional(), profiles: z.array(ProfileSchema).min(1) })
  .meta({ id: 'ProfileTemplate', description: 'Reusable profiles, applied to target groups by name.' });

export const WebhookSchema = z
  .strictObject({
    url: httpUrl('Where deliveries are sent.'),
    events: z
      .array(patterned(/^[A-Za-z0-9_.-]+$/, 'an event name such as target-group-updated', 'Event kind.'))
      .min(1)
      .refine((a) => new Set(a).size === a.length)
      .meta({ uniqueItems: true }),
    compression: z.enum(['gzip']).nullable().default(null).meta({ description: 'gzip, or null/omitted for uncompressed.' }),
  })
  .meta({ id: 'Webhook', description: 'A webhook of the account.' });

export const ProjectSchema = z
  .strictObject({
    name: z.string().min(5).max(128).meta({ description: 'Project name, 5 to 128 characters.' }),
    project_customer_reference_number: z
      .string()
      .min(3)
      .max(128)
      .regex(CUSTOMER_REFERENCE_PATTERN)
      .meta({
        description: 'Your own project number, e.g. a purchase order (default: the study id); 3 to 128 letters, digits, -, _ and spaces.',
        patternErrorMessage: 'letters, digits, -, _ and spaces only, such as PO-2026-0042',
      })
      .optional(),
  })
  .meta({ id: 'Project', description: 'The project the study\'s target groups belong to. Its human-readable id is assigned by the API.' });

/**
 * A reconciliation reason code as the exchange lists them (request_reconciliation_reason_codes; the reference's
 * examples are `11` and `932`): 1 to 6 digits. Whether the exchange knows it, and allows it, is the plan's check.
 */
export const REASON_CODE_PATTERN = /^[0-9]{1,6}$/;
/** A tolerance as a percentage of the expected count: `5%`, `2.5%` (at most 100). */
export const TOLERANCE_PERCENT_PATTERN = /^(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)%$/;
/** What `closeout.deadline_warning` is when the file gives none. */
export const DEFAULT_DEADLINE_WARNING = 'P3D';
const REASON_CODE_MESSAGE = 'a reason code of the exchange\'s list: 1 to 6 digits such as "11" or "932" (quote it)';

export const ReversalFileSchema = z
  .strictObject({
    file: text('Path of the reversal file (one RID, or `RID,code`, per line; no header), relative to the study file.'),
    reason: patterned(REASON_CODE_PATTERN, REASON_CODE_MESSAGE, 'The reason code of the lines that give a RID only.').optional(),
  })
  .meta({ id: 'ReversalFile', description: 'Completes to reverse: a CSV file of RIDs (each with its reason code, or the file\'s `reason`).' });

export const ApprovedCompletesSchema = z
  .strictObject({
    file: text('Path of the list of RIDs that stay completes (one per line, no header), relative to the study file.'),
    expect_terminated: z.number().int().min(0).meta({ description: 'How many completes of the project you expect the list to terminate.' }),
    tolerance: z
      .union([
        z.number().int().min(0).meta({ description: 'A number of completes.' }),
        patterned(TOLERANCE_PERCENT_PATTERN, 'a percentage such as 5% or 2.5% (at most 100%)', 'A percentage of expect_terminated (rounded down to whole completes).'),
      ])
      .default(0)
      .meta({ description: 'How far the completes the exchange would terminate may be from expect_terminated: a number of completes, or a percentage such as `5%` (default 0).' }),
  })
  .meta({
    id: 'ApprovedCompletes',
    description: 'Opt-in post_reconciliations_completes: the listed RIDs stay completes, every other complete of the project is terminated.',
  });

export const CloseoutSchema = z
  .strictObject({
    reversals: z.array(ReversalFileSchema).min(1).optional().meta({ description: 'Reversal files; their RIDs are submitted together, each RID once.' }),
    approved_completes: ApprovedCompletesSchema.optional(),
    reports: z
      .array(z.enum(CLOSEOUT_REPORT_TYPES))
      .refine((a) => new Set(a).size === a.length)
      .default([])
      .meta({ uniqueItems: true, description: 'Reports to generate and archive once the reversals are done.' }),
    deadline_warning: patterned(
      GUARD_DURATION_PATTERN,
      'an ISO-8601 duration of weeks, days, hours, minutes or seconds, such as P3D or PT36H',
      `Notify closeout_deadline this long before a reconciliation window closes (default ${DEFAULT_DEADLINE_WARNING}).`,
    ).default(DEFAULT_DEADLINE_WARNING),
  })
  .meta({ id: 'Closeout', description: 'How the study closes out: completes to reverse, the approved completes, reports to archive.' });

const formatField = z.literal(FORMAT_VERSION).meta({ description: 'Format version of the file.' });
const exclusionGroupsMap = <T extends z.ZodType>(group: T) => z.record(localName('Exclusion group name.'), group);
const profileTemplatesMap = z.record(localName('Template name.'), ProfileTemplateSchema);

export const StudyFileSchema = z
  .strictObject({
    format: formatField,
    api_version: z.enum(API_VERSIONS).default(CURRENT_API_VERSION).meta({ description: 'Demand API version.' }),
    study: patterned(STUDY_ID_PATTERN, 'a lowercase slug of 3 to 63 letters, digits and -, such as acme-tracker-2026q4', 'Stable study id.'),
    account: remoteId('Account id.'),
    business_unit: remoteId('Business unit id: sent as business_unit_id on every target group of the study.'),
    project_manager_id: projectManagerId(
      'Project manager (a user id, UUID): of the project, and of every target group that names none. Default: the one every target group names.',
    ).optional(),
    project: ProjectSchema,
    defaults: TargetGroupDefaultsSchema.optional(),
    target_groups: z.record(localName('Stable local key of the target group.'), TargetGroupSchema),
    exclusion_groups: exclusionGroupsMap(ExclusionGroupSchema).optional(),
    profile_templates: profileTemplatesMap.optional(),
    webhooks: z.array(WebhookSchema).optional(),
    removed_target_groups: z.enum(REMOVED_TARGET_GROUP_POLICIES).optional().meta({
      description: 'What apply does with a target group the study manages and the file no longer declares: keep (the default; it fields on, unmanaged) or complete.',
    }),
    notify: NotifyBlockSchema.optional(),
    guards: GuardsSchema.optional().meta({ description: 'Guards of every target group of the study (below those of defaults and of the target group, by name).' }),
    budget: MoneySchema.optional().meta({
      description: 'What the study may cost: apply refuses to launch when the predicted cost is above it, and the watch pauses the study when the spend reaches it.',
    }),
    closeout: CloseoutSchema.optional(),
  })
  .meta({ id: 'StudyFile', title: 'studyflow study', description: 'A study file (format studyflow/v1).' });

export const SharedFileSchema = z
  .strictObject({
    format: formatField,
    exclusion_groups: exclusionGroupsMap(SharedExclusionGroupSchema).optional(),
    profile_templates: profileTemplatesMap.optional(),
    notify: NotifyBlockSchema.optional(),
  })
  .meta({ id: 'SharedFile', title: 'studyflow shared definitions', description: 'shared.yaml: exclusion groups and profile templates for every study of its directory.' });

// ---- resolved model (after defaults, templates and shared definitions) ----

/** A target group with `defaults` merged in and launch/timing defaults applied; rules run on it. */
export const MergedTargetGroupSchema = TargetGroupSchema.extend({
  launch: LaunchRulesSchema.prefault({}),
  timing: TimingSchema.prefault({}),
});
export type MergedTargetGroup = z.infer<typeof MergedTargetGroupSchema>;

const ResolvedExclusionsSchema = ExclusionsSchema.extend({
  exclusion_groups: z.array(z.string()).default([]),
});

export const ResolvedTargetGroupSchema = TargetGroupSchema.omit({ profile_templates: true }).extend({
  locale: z.string(),
  expected_incidence_rate: z.number(),
  expected_length_of_interview_minutes: z.number().int(),
  filling_goal: z.number().int(),
  project_manager_id: z.string(),
  collects_pii: z.boolean(),
  profiles: z.array(ProfileSchema).default([]),
  /** Templates that exist in the API (local templates are expanded into `profiles`). */
  remote_profile_template_ids: z.array(z.string()).default([]),
  exclusions: ResolvedExclusionsSchema.prefault({}),
  allocations: AllocationsSchema.prefault({}),
  fielding_assistant_assignment: FieldingAssistantSchema.prefault({}),
  launch: LaunchRulesSchema.prefault({}),
  timing: TimingSchema.prefault({}),
  /** The guards in force: the study's, defaults' and the target group's merged by name, those switched off left out. */
  guards: z.record(z.string(), GuardSchema).default({}),
  /** The soft launch in force (`false` of a target group left out). */
  soft_launch: SoftLaunchSchema.optional(),
});

export const StudySchema = z.object({
  format: formatField,
  api_version: z.enum(API_VERSIONS).default(CURRENT_API_VERSION),
  study: z.string(),
  account: z.string(),
  business_unit: z.string(),
  project: z.object({ name: z.string(), project_manager_id: z.string(), project_customer_reference_number: z.string() }),
  target_groups: z.record(z.string(), ResolvedTargetGroupSchema),
  /** Exclusion groups this study declares or joins; `target_groups` are this study's members. */
  exclusion_groups: z.record(z.string(), z.object({ name: z.string(), shared: z.boolean(), target_groups: z.array(z.string()) })).default({}),
  webhooks: z.array(WebhookSchema).default([]),
  /** Absent: keep, left implicit (the plan warns when a managed target group is removed). */
  removed_target_groups: z.enum(REMOVED_TARGET_GROUP_POLICIES).optional(),
  /** Notification targets (shared.yaml's, then the study's): the NAME of the variable with each URL, never the URL. */
  notify: z.array(z.object({ envName: z.string(), events: z.array(z.enum(NOTIFY_EVENTS)) })).default([]),
  budget: MoneySchema.optional(),
  /** The close-out as written, with defaults applied and file paths absolute. */
  closeout: CloseoutSchema.optional(),
});

/** The typed study after defaults are applied; what the planner works on. */
export type Study = z.infer<typeof StudySchema>;
export type TargetGroupSpec = z.infer<typeof ResolvedTargetGroupSchema>;
export type LaunchRules = z.infer<typeof LaunchRulesSchema>;
export type FieldingState = (typeof FIELDING_STATES)[number];
export type RemovedTargetGroupPolicy = (typeof REMOVED_TARGET_GROUP_POLICIES)[number];
export type Timing = z.infer<typeof TimingSchema>;
export type Profile = z.infer<typeof ProfileSchema>;
export type Target = z.infer<typeof TargetSchema>;
export type Condition = z.infer<typeof ConditionSchema>;
export type Quota = z.infer<typeof QuotaSchema>;
export type ActivityExclusionItem = z.infer<typeof ActivityExclusionItemSchema>;
export type ActivityExclusions = z.infer<typeof ActivityExclusionsSchema>;
export type Webhook = z.infer<typeof WebhookSchema>;
export type Money = z.infer<typeof MoneySchema>;
export type Guard = z.infer<typeof GuardSchema>;
export type Closeout = z.infer<typeof CloseoutSchema>;
export type SoftLaunch = z.infer<typeof SoftLaunchSchema>;
export type GuardKind = (typeof GUARD_KINDS)[number];
export type GuardAction = (typeof GUARD_ACTIONS)[number];
export type Allocations = z.infer<typeof AllocationsSchema>;
export type RespondentStatus = (typeof RESPONDENT_STATUSES)[number];
/** A study file as written (no defaults applied). */
export type StudyFile = z.input<typeof StudyFileSchema>;
export type SharedFile = z.input<typeof SharedFileSchema>;
