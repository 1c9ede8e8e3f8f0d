// Projects: ensure (read before create), update, get, overview; the operations are api/operations/projects.ts.
import { ensureProject, getProject, getProjectOverview, updateProject, type ProjectDesired } from '../api/operations/projects';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx, ApiObject } from './types';

export type { ProjectDesired } from '../api/operations/projects';

export interface EnsureProjectInput {
  ctx: ActivityCtx;
  /** Sent as Idempotency-Key on the create; derive it from study, resource and intent. */
  idempotencyKey: string;
  /** The id remembered from an earlier run, tried first. */
  knownId?: string;
  desired: ProjectDesired;
  /** The plan observed no such project: create it without looking again (see ensureResource). */
  observedAbsent?: boolean;
}
export interface EnsureProjectOutput {
  /** The project read back when it existed; after a create, `{id}` and the fields sent (create answers only the id). */
  project: ApiObject;
  created: boolean;
}
export interface UpdateProjectInput {
  ctx: ActivityCtx;
  projectId: string;
  desired: ProjectDesired;
  /** Sent as Idempotency-Key on the update (required by the reference). */
  idempotencyKey: string;
}
export interface ProjectInput {
  ctx: ActivityCtx;
  projectId: string;
}
export interface ProjectOutput {
  project: ApiObject;
}
export interface ProjectOverviewOutput {
  overview: Record<string, unknown>;
}

export function projectActivities(deps: ActivityDeps) {
  return {
    /** Finds the project by knownId, then by project_customer_reference_number; else creates it. */
    async ensureProject(input: EnsureProjectInput): Promise<EnsureProjectOutput> {
      const ctx = checkCtx('ensureProject', input.ctx);
      const idempotencyKey = requireText('ensureProject', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('ensureProject', 'desired', input.desired) as ProjectDesired;
      requireText('ensureProject', 'desired.project_customer_reference_number', desired.project_customer_reference_number);
      return await ensureProject(activityCaller(deps, ctx), { idempotencyKey, knownId: input.knownId, desired, observedAbsent: input.observedAbsent, pageSize: deps.listPageSize });
    },

    /** update_project with the read's ETag as If-Match (api/operations/projects.ts). */
    async updateProject(input: UpdateProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('updateProject', input.ctx);
      const projectId = requireText('updateProject', 'projectId', input.projectId);
      const idempotencyKey = requireText('updateProject', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('updateProject', 'desired', input.desired) as ProjectDesired;
      return { project: await updateProject(activityCaller(deps, ctx), { projectId, desired, idempotencyKey }) };
    },

    async getProject(input: ProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('getProject', input.ctx);
      const projectId = requireText('getProject', 'projectId', input.projectId);
      return { project: await getProject(activityCaller(deps, ctx), projectId) };
    },

    async getProjectOverview(input: ProjectInput): Promise<ProjectOverviewOutput> {
      const ctx = checkCtx('getProjectOverview', input.ctx);
      const projectId = requireText('getProjectOverview', 'projectId', input.projectId);
      return { overview: await getProjectOverview(activityCaller(deps, ctx), projectId) };
    },
  };
}
