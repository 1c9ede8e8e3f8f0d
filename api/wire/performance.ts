// Target-group performance on the wire (reference: get_target_group_performance, answer
// TargetGroupPerformance; spec: Resources › Target group, completes_cost). A launched group's counts, its
// cost so far, the dates of its first and last complete, three rates and the respondents by status. It
// carries no status, goal, quota fill or sessions in progress: studyflow takes those from elsewhere or
// derives them (docs/report.md).
import { z } from 'zod';
import { WireMoney } from './feasibility';

const Count = z.number().int().min(0);
/** IncidenceRate, DropOffRate, ConversionRate: 0–1. */
const Rate = z.number().min(0).max(1);

/** RespondentAnalysisStatusCodes: the reference marks none of its fields required. */
export const RespondentAnalysisItem = z.looseObject({
  status: z.string().optional(),
  label: z.string().optional(),
  description: z.string().optional(),
  count: Count.optional(),
});

/**
 * TargetGroupPerformance: `entrants`, `prescreens` and `completes` required; `completes_cost` is money in
 * the common format (the spec: a decimal string `value`, `currency_code`, nullable `currency_scale`; an
 * older version's integer minor units are made that format before the check).
 */
export const TargetGroupPerformanceAnswer = z.looseObject({
  entrants: Count,
  prescreens: Count,
  completes: Count,
  completes_cost: WireMoney.optional(),
  first_complete: z.iso.datetime({ offset: true }).optional(),
  last_complete: z.iso.datetime({ offset: true }).optional(),
  incidence_rate: Rate.optional(),
  drop_off_rate: Rate.optional(),
  conversion_rate: Rate.optional(),
  respondent_analysis: z.looseObject({ live: z.array(RespondentAnalysisItem).optional(), test: z.array(RespondentAnalysisItem).optional() }).optional(),
});
export type TargetGroupPerformanceAnswer = z.infer<typeof TargetGroupPerformanceAnswer>;
