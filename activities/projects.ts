// Projects: ensure (read before create), update, get, overview.
import { accountPath, callApi, expectObject, expectResource, projectPath, readResourceOrMissing } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { ensureResource } from './ensure-resource';
import { listAllPages } from './pagination';
import { LIST_PROJECTS } from './http/wire/lists';
import type { ActivityCtx, ApiObject, JsonObject } from './types';
import { fromWireBody, toWireBody } from './version-adapter';

/** Project fields studyflow sets (2025-12-18 names); other fields pass through. */
export interface ProjectDesired extends JsonObject {
  name: string;
  /** The natural key: the caller's own project identifier. */
  project_customer_reference_number: string;
  business_unit_id?: string;
  human_readable_id?: string;
}

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
  project: ApiObject;
  created: boolean;
}
export interface UpdateProjectInput {
  ctx: ActivityCtx;
  projectId: string;
  desired: ProjectDesired;
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

/**
 * The account's projects with project_customer_reference_number `reference`. The reference's project list
 * (list_account_projects) has no filter for it, so every page is read and matched here.
 */
export async function findProjectsByReference(deps: ActivityDeps, ctx: ActivityCtx, reference: string): Promise<ApiObject[]> {
  const items = await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/projects` }, LIST_PROJECTS, deps.listPageSize ?? 100);
  return items.filter((item) => item.project_customer_reference_number === reference).map((item) => fromWireBody(item, ctx.apiVersion) as ApiObject);
}

export function projectActivities(deps: ActivityDeps) {
  const readProject = (ctx: ActivityCtx, projectId: string) => readResourceOrMissing(deps.api, ctx, projectPath(ctx, projectId));


  return {
    /** Finds the project by knownId, then by project_customer_reference_number; else creates it. */
    async ensureProject(input: EnsureProjectInput): Promise<EnsureProjectOutput> {
      const ctx = checkCtx('ensureProject', input.ctx);
      const key = requireText('ensureProject', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('ensureProject', 'desired', input.desired) as ProjectDesired;
      const reference = requireText('ensureProject', 'desired.project_customer_reference_number', desired.project_customer_reference_number);
      const { resource, created } = await ensureResource({
        describe: `project with project_customer_reference_number ${reference}`,
        observedAbsent: input.observedAbsent === true,
        getById: input.knownId ? () => readProject(ctx, input.knownId as string) : undefined,
        findByNaturalKey: () => findProjectsByReference(deps, ctx, reference),
        getFull: (id) => readProject(ctx, id),
        create: async () => {
          const req = {
            method: 'POST',
            path: `${accountPath(ctx)}/projects`,
            json: toWireBody(desired, ctx.apiVersion),
            idempotencyKey: key,
          } as const;
          return fromWireBody(expectResource(req, await callApi(deps.api, ctx, req)), ctx.apiVersion);
        },
      });
      return { project: resource, created };
    },

    /** PUT P/projects/{id} with the desired fields. */
    async updateProject(input: UpdateProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('updateProject', input.ctx);
      const projectId = requireText('updateProject', 'projectId', input.projectId);
      const desired = requireObject('updateProject', 'desired', input.desired);
      const req = { method: 'PUT', path: projectPath(ctx, projectId), json: toWireBody(desired, ctx.apiVersion) } as const;
      return { project: fromWireBody(expectResource(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
    },

    async getProject(input: ProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('getProject', input.ctx);
      const projectId = requireText('getProject', 'projectId', input.projectId);
      const req = { method: 'GET', path: projectPath(ctx, projectId) } as const;
      return { project: fromWireBody(expectResource(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
    },

    async getProjectOverview(input: ProjectInput): Promise<ProjectOverviewOutput> {
      const ctx = checkCtx('getProjectOverview', input.ctx);
      const projectId = requireText('getProjectOverview', 'projectId', input.projectId);
      const req = { method: 'GET', path: `${projectPath(ctx, projectId)}/overview` } as const;
      return { overview: fromWireBody(expectObject(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
    },
  };
}
