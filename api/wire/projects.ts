// Project operations on the wire (reference: create_project, get_project_by_id, update_project,
// project_overview). The list item lives in lists.ts.
import { z } from 'zod';
import { CUSTOMER_REFERENCE_PATTERN, ResourceId } from './common';

/** UserID: a UUID (project managers). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UserId = z.string().regex(UUID_PATTERN, 'is not a UUID');

const ProjectName = z.string().min(5).max(128);
const ProjectReference = z.string().min(3).max(128).regex(CUSTOMER_REFERENCE_PATTERN);

/** ProjectInfo: the create body. No business unit and no human_readable_id (the server assigns it). */
export const CreateProjectRequest = z.strictObject({
  name: ProjectName,
  project_manager_id: UserId,
  project_customer_reference_number: ProjectReference.optional(),
});
/** ProjectInfoUpdate: every field required (a reference number left out would be deleted). */
export const UpdateProjectRequest = z.strictObject({
  name: ProjectName,
  project_manager_id: UserId,
  project_customer_reference_number: ProjectReference.nullable(),
});
/** 202 of create_project (ProjectIDResponse). */
export const CreateProjectResponse = z.looseObject({ id: ResourceId });
/** 200 of update_project (ProjectIDWithHumanReadableIDResponse). */
export const UpdateProjectResponse = z.looseObject({ id: ResourceId, human_readable_id: z.string().optional() });
/** ProjectDetails (get_project_by_id). */
export const ProjectDetails = z.looseObject({
  id: ResourceId,
  human_readable_id: z.string().optional(),
  name: z.string(),
  project_manager_id: UserId,
  account_id: z.number().int(),
  project_customer_reference_number: z.string().optional(),
});
export type ProjectDetails = z.infer<typeof ProjectDetails>;
/** ProjectOverview (project_overview). */
export const ProjectOverview = z.looseObject({
  id: ResourceId,
  human_readable_id: z.string(),
  account_id: z.number().int(),
  status: z.enum(['active', 'inactive']),
  statistics: z.looseObject({ filling_goal: z.number(), current_completes: z.number(), current_prescreens: z.number() }),
  project_manager_id: UserId,
  created_at: z.string(),
});
