// Respondent activity exclusions on the wire (reference: get/set_target_group_respondent_activity_exclusions):
// items `{type: "target-group" | "project", id, duration?}` plus the spec's respondent_statuses; the PUT answers 204.
import { z } from 'zod';

export const ActivityExclusionWireItem = z.looseObject({
  type: z.enum(['target-group', 'project']),
  id: z.string().min(1),
  duration: z.string().optional(),
  respondent_statuses: z.array(z.string()).optional(),
});

export const ActivityExclusionsAnswer = z.looseObject({
  respondent_activity_exclusions: z.array(ActivityExclusionWireItem),
  duration: z.string().nullable().optional(),
});

export const ActivityExclusionsRequest = z.strictObject({
  duration: z.string().optional(),
  respondent_activity_exclusions: z.array(ActivityExclusionWireItem),
});
