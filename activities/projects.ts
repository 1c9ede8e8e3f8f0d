// Projects: ensure (read before create), update, get, overview — on the reference's wire (create_project,
// update_project, get_project_by_id, project_overview; docs/api-conventions.md).
import { accountPath, callApi, projectPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { ensureResource } from './ensure-resource';
import { listAllPages } from './pagination';
import { LIST_PROJECTS } from '../api/wire/lists';
import { CreateProjectRequest, CreateProjectResponse, ProjectDetails, ProjectOverview, UpdateProjectRequest, UpdateProjectResponse } from '../api/wire/projects';
import { readAnswer } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { unexpectedResponseFailure } from '../api/http/errors';
import type { ActivityCtx, ApiObject, JsonObject } from './types';
import { fromWireBody, toWireBody } from '../api/wire/version-adapter';

/**
 * The project fields studyflow sets (ProjectInfo). `human_readable_id` is the server's; a project has no
 * business unit (its target groups carry one).
 */
export interface ProjectDesired extends JsonObject {
  /** 5 to 128 characters. */
  name: string;
  /** A UUID (the reference's UserID). */
  project_manager_id: string;
  /** The natural key: the caller's own project identifier. */
  project_customer_reference_number: string;
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

/** The create and update body: exactly ProjectInfo's fields. */
function projectBody(desired: ProjectDesired) {
  return {
    name: desired.name,
    project_manager_id: desired.project_manager_id,
    project_customer_reference_number: desired.project_customer_reference_number,
  };
}

/**
 * The account's projects with project_customer_reference_number `reference`. The reference's project list
 * (list_account_projects) has no filter for it, so every page is read and matched here.
 */
export async function findProjectsByReference(deps: ActivityDeps, ctx: ActivityCtx, reference: string): Promise<ApiObject[]> {
  const items = await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/projects` }, LIST_PROJECTS, deps.listPageSize ?? 100);
  return items.filter((item) => item.project_customer_reference_number === reference).map((item) => fromWireBody(item, ctx.apiVersion) as ApiObject);
}

/**
 * get_project_by_id: the project (ProjectDetails) and its ETag; undefined on 404 when `missing` is `undefined`,
 * else a 404 is the API's final not_found_error.
 */
export async function readProject(
  deps: ActivityDeps,
  ctx: ActivityCtx,
  projectId: string,
  missing: 'undefined' | 'fail' = 'undefined',
): Promise<{ project: ApiObject; etag: string | undefined } | undefined> {
  const req = { method: 'GET', path: projectPath(ctx, projectId), acceptStatuses: missing === 'undefined' ? [404] : [] } as const;
  const res = await callApi(deps.api, ctx, req);
  if (res.status === 404) return undefined;
  const project = readAnswer({ operation: 'get_project_by_id', ...req }, ProjectDetails, { status: res.status, body: fromWireBody(res.body, ctx.apiVersion) });
  return { project: project as ApiObject, etag: res.headers.etag };
}

export function projectActivities(deps: ActivityDeps) {
  const read = async (ctx: ActivityCtx, projectId: string) => (await readProject(deps, ctx, projectId))?.project;

  return {
    /**
     * Finds the project by knownId, then by project_customer_reference_number; else creates it (202 `{id}`;
     * the id is used as is, without reading the project back).
     */
    async ensureProject(input: EnsureProjectInput): Promise<EnsureProjectOutput> {
      const ctx = checkCtx('ensureProject', input.ctx);
      const key = requireText('ensureProject', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('ensureProject', 'desired', input.desired) as ProjectDesired;
      const reference = requireText('ensureProject', 'desired.project_customer_reference_number', desired.project_customer_reference_number);
      const { resource, created } = await ensureResource({
        describe: `project with project_customer_reference_number ${reference}`,
        observedAbsent: input.observedAbsent === true,
        getById: input.knownId ? () => read(ctx, input.knownId as string) : undefined,
        findByNaturalKey: () => findProjectsByReference(deps, ctx, reference),
        getFull: (id) => read(ctx, id),
        create: async () => {
          const json = requestBody('ensureProject', 'create_project', CreateProjectRequest, projectBody(desired));
          const req = { method: 'POST', path: `${accountPath(ctx)}/projects`, json: toWireBody(json, ctx.apiVersion), idempotencyKey: key } as const;
          const answer = readAnswer({ operation: 'create_project', ...req }, CreateProjectResponse, await callApi(deps.api, ctx, req));
          return { ...json, id: answer.id };
        },
      });
      return { project: resource, created };
    },

    /**
     * PUT P/projects/{id} (update_project): reads the project for its ETag, then sends the whole ProjectInfoUpdate
     * with If-Match and the Idempotency-Key. A 412 (changed since the read) is final: the next apply plans again.
     */
    async updateProject(input: UpdateProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('updateProject', input.ctx);
      const projectId = requireText('updateProject', 'projectId', input.projectId);
      const key = requireText('updateProject', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('updateProject', 'desired', input.desired) as ProjectDesired;
      const current = (await readProject(deps, ctx, projectId, 'fail'))!;
      const path = projectPath(ctx, projectId);
      if (!current.etag) throw unexpectedResponseFailure({ method: 'GET', path }, 200, 'get_project_by_id answered without an ETag');
      const json = requestBody('updateProject', 'update_project', UpdateProjectRequest, projectBody(desired));
      const req = { method: 'PUT', path, json: toWireBody(json, ctx.apiVersion), idempotencyKey: key, ifMatch: current.etag } as const;
      const answer = readAnswer({ operation: 'update_project', ...req }, UpdateProjectResponse, await callApi(deps.api, ctx, req));
      return { project: { ...current.project, ...json, id: answer.id } };
    },

    async getProject(input: ProjectInput): Promise<ProjectOutput> {
      const ctx = checkCtx('getProject', input.ctx);
      const projectId = requireText('getProject', 'projectId', input.projectId);
      return { project: (await readProject(deps, ctx, projectId, 'fail'))!.project };
    },

    async getProjectOverview(input: ProjectInput): Promise<ProjectOverviewOutput> {
      const ctx = checkCtx('getProjectOverview', input.ctx);
      const projectId = requireText('getProjectOverview', 'projectId', input.projectId);
      const req = { method: 'GET', path: `${projectPath(ctx, projectId)}/overview` } as const;
      const res = await callApi(deps.api, ctx, req);
      return { overview: readAnswer({ operation: 'project_overview', ...req }, ProjectOverview, { status: res.status, body: fromWireBody(res.body, ctx.apiVersion) }) };
    },
  };
}
