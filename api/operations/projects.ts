// Projects on the reference's wire (create_project, update_project, get_project_by_id, project_overview,
// list_account_projects; docs/api-conventions.md): read, find by reference, ensure (read before create), update.
import { ambiguousNaturalKeyFailure, unexpectedResponseFailure } from '../http/errors';
import { LIST_PROJECTS, pageSchema } from '../wire/lists';
import { CreateProjectRequest, CreateProjectResponse, ProjectDetails, ProjectOverview, UpdateProjectRequest, UpdateProjectResponse } from '../wire/projects';
import { readAnswer } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { fromWireBody, toWireBody } from '../wire/version-adapter';
import { readResourceOrMissing } from './answers';
import { accountPath, projectPath, type ApiCaller } from './caller';
import { ensureResource } from './ensure-resource';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';
import type { ApiObject, JsonObject } from './types';

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
export async function findProjectsByReference(caller: ApiCaller, reference: string, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<ApiObject[]> {
  const items = await listAllPages(caller, { method: 'GET', path: `${accountPath(caller)}/projects` }, LIST_PROJECTS, pageSize);
  return items.filter((item) => item.project_customer_reference_number === reference).map((item) => fromWireBody(item, caller.apiVersion) as ApiObject);
}

/**
 * get_project_by_id: the project (ProjectDetails) and its ETag; undefined on 404 when `missing` is `undefined`,
 * else a 404 is the API's final not_found_error.
 */
export async function readProject(
  caller: ApiCaller,
  projectId: string,
  missing: 'undefined' | 'fail' = 'undefined',
): Promise<{ project: ApiObject; etag: string | undefined } | undefined> {
  const req = { method: 'GET', path: projectPath(caller, projectId), acceptStatuses: missing === 'undefined' ? [404] : [] } as const;
  const res = await caller.send(req);
  if (res.status === 404) return undefined;
  const project = readAnswer({ operation: 'get_project_by_id', ...req }, ProjectDetails, { status: res.status, body: fromWireBody(res.body, caller.apiVersion) });
  return { project: project as ApiObject, etag: res.headers.etag };
}

/** get_project_by_id; a 404 is the API's final not_found_error. */
export async function getProject(caller: ApiCaller, projectId: string): Promise<ApiObject> {
  return (await readProject(caller, projectId, 'fail'))!.project;
}

export interface EnsureProject {
  /** Sent as Idempotency-Key on the create. */
  idempotencyKey: string;
  /** The id remembered from an earlier run, tried first. */
  knownId?: string;
  desired: ProjectDesired;
  /** The plan observed no such project: create it without looking again (see ensureResource). */
  observedAbsent?: boolean;
  /** Page size of the project list read for the natural key. */
  pageSize?: number;
}

/**
 * Finds the project by knownId, then by project_customer_reference_number; else creates it (202 `{id}`;
 * the id is used as is, without reading the project back: the result is `{id}` and the fields sent).
 */
export async function ensureProject(caller: ApiCaller, input: EnsureProject): Promise<{ project: ApiObject; created: boolean }> {
  const { desired, knownId } = input;
  const reference = desired.project_customer_reference_number;
  const read = async (id: string) => (await readProject(caller, id))?.project;
  const { resource, created } = await ensureResource({
    describe: `project with project_customer_reference_number ${reference}`,
    observedAbsent: input.observedAbsent === true,
    getById: knownId ? () => read(knownId) : undefined,
    findByNaturalKey: () => findProjectsByReference(caller, reference, input.pageSize),
    getFull: read,
    create: async () => {
      const json = requestBody('ensureProject', 'create_project', CreateProjectRequest, projectBody(desired));
      const req = { method: 'POST', path: `${accountPath(caller)}/projects`, json: toWireBody(json, caller.apiVersion), idempotencyKey: input.idempotencyKey } as const;
      const answer = readAnswer({ operation: 'create_project', ...req }, CreateProjectResponse, await caller.send(req));
      return { ...json, id: answer.id };
    },
  });
  return { project: resource, created };
}

/**
 * update_project `PUT P/projects/{id}`: reads the project for its ETag, then sends the whole ProjectInfoUpdate
 * with If-Match and the Idempotency-Key. A 412 (changed since the read) is final: the next apply plans again.
 */
export async function updateProject(caller: ApiCaller, input: { projectId: string; desired: ProjectDesired; idempotencyKey: string }): Promise<ApiObject> {
  const current = (await readProject(caller, input.projectId, 'fail'))!;
  const path = projectPath(caller, input.projectId);
  if (!current.etag) throw unexpectedResponseFailure({ method: 'GET', path }, 200, 'get_project_by_id answered without an ETag');
  const json = requestBody('updateProject', 'update_project', UpdateProjectRequest, projectBody(input.desired));
  const req = { method: 'PUT', path, json: toWireBody(json, caller.apiVersion), idempotencyKey: input.idempotencyKey, ifMatch: current.etag } as const;
  const answer = readAnswer({ operation: 'update_project', ...req }, UpdateProjectResponse, await caller.send(req));
  return { ...current.project, ...json, id: answer.id };
}

/** project_overview `GET P/projects/{id}/overview`. */
export async function getProjectOverview(caller: ApiCaller, projectId: string): Promise<Record<string, unknown>> {
  const req = { method: 'GET', path: `${projectPath(caller, projectId)}/overview` } as const;
  const res = await caller.send(req);
  return readAnswer({ operation: 'project_overview', ...req }, ProjectOverview, { status: res.status, body: fromWireBody(res.body, caller.apiVersion) });
}

/**
 * The study's project as observed before a plan: by the remembered id, else by its customer reference number
 * (more than one match is an ambiguous natural key); undefined when there is none.
 */
export async function findProject(caller: ApiCaller, input: { knownId?: string; reference: string; pageSize?: number }): Promise<ApiObject | undefined> {
  if (input.knownId) {
    const byId = await readResourceOrMissing(caller, projectPath(caller, input.knownId));
    if (byId) return byId;
  }
  const found = await findProjectsByReference(caller, input.reference, input.pageSize);
  if (found.length > 1) throw ambiguousNaturalKeyFailure(`project with project_customer_reference_number ${input.reference}`, found.map((p) => p.id));
  return found[0] ? await readResourceOrMissing(caller, projectPath(caller, found[0].id)) : undefined;
}

/** One page of list_account_projects (no cursor): its projects and whether there are more. */
export async function readProjectsPage(caller: ApiCaller, pageSize: number): Promise<{ projects: unknown[]; hasMore: boolean }> {
  const path = `${accountPath(caller)}/projects`;
  const page = readAnswer({ operation: LIST_PROJECTS.operation, method: 'GET', path }, pageSchema(LIST_PROJECTS), await caller.send({ method: 'GET', path, query: { page_size: pageSize } }));
  return { projects: page.projects as unknown[], hasMore: page.has_more === true };
}
