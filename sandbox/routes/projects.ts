// Projects: list, create, get, update (PUT), overview (spec: Endpoints › Projects; the reference's
// list_account_projects, create_project, get_project_by_id, update_project, project_overview).
import { ApiError, badRequest } from '../core/api-error';
import { IDEMPOTENCY_HEADER } from '../core/idempotency';
import { keyedListBody, parsePageRequest, paginate } from '../core/pagination';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { ProjectRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireProject } from '../resources/lookups';
import {
  assignHumanReadableId,
  humanReadableIdField,
  projectEtag,
  projectStatistics,
  readProjectInput,
  renderProject,
  renderProjectListItem,
} from '../resources/project-wire';
import { PROJECT, PROJECTS } from './paths';

export const PAGE = { max: 100, default: 20 };

function listProjects(ctx: RequestContext) {
  const page = parsePageRequest(ctx.query, PAGE);
  // The reference (list_account_projects) filters by name/search_string, status and project manager; it
  // has no customer-reference-number filter, so neither has the sandbox.
  const status = ctx.query.get('status');
  const items = Object.values(ctx.store.data.projects).filter((p) => p.account_id === ctx.account!.account_id && (status === null || status === 'active'));
  const groups = Object.values(ctx.store.data.target_groups);
  return ok(keyedListBody('projects', paginate(items, page, (p) => renderProjectListItem(p, ctx.version, groups.filter((tg) => tg.project_id === p.id))), ctx.path));
}

/** The reference requires `idempotency-key` on create_project and update_project. */
function requireIdempotencyKey(ctx: RequestContext): void {
  if (!ctx.header(IDEMPOTENCY_HEADER)) {
    throw badRequest('The idempotency-key header is required.', [{ name: IDEMPOTENCY_HEADER, reason: 'is required' }]);
  }
}

/** 202 `{id}` with the ETag (reference: create_project; creation is asynchronous there, immediate here). */
function createProject(ctx: RequestContext) {
  requireIdempotencyKey(ctx);
  const input = readProjectInput(ctx.body, ctx.version, ctx.account!, 'create');
  const now = ctx.clock.iso();
  const id = ctx.newId('prj');
  const seq = ctx.store.nextSeq();
  const taken = new Set(Object.values(ctx.store.data.projects).filter((p) => p.account_id === ctx.account!.account_id).map((p) => p.human_readable_id));
  const project: ProjectRecord = {
    id,
    seq,
    account_id: ctx.account!.account_id,
    name: input.name,
    human_readable_id: assignHumanReadableId(seq, taken),
    project_customer_reference_number: input.project_customer_reference_number,
    purchase_order_number: input.purchase_order_number ?? null,
    project_manager_id: input.project_manager_id,
    revision: 1,
    pinned_version: null,
    created_at: now,
    updated_at: now,
  };
  pinWriteVersion(project, ctx.version);
  ctx.store.data.projects[id] = project;
  return { status: 202, body: { id }, headers: { etag: projectEtag(project), location: `${ctx.path}/${encodeURIComponent(id)}` } };
}

/** If-Match (the ETag of the last read) and idempotency-key required; 412 on a stale ETag. Answers `{id, human_readable_id}`. */
function updateProject(ctx: RequestContext) {
  const project = requireProject(ctx);
  assertWriteVersionAllowed(project, ctx.version, 'project');
  const ifMatch = ctx.header('if-match');
  if (ifMatch === undefined) throw badRequest('The If-Match header with the ETag of the project is required.', [{ name: 'If-Match', reason: 'is required' }]);
  requireIdempotencyKey(ctx);
  const current = projectEtag(project);
  if (!ifMatch.split(',').map((t) => t.trim()).some((t) => t === '*' || t === current)) {
    throw new ApiError(412, 'precondition_failed_error', 'The project has been modified since it was read (stale ETag); read it again.');
  }
  const input = readProjectInput(ctx.body, ctx.version, ctx.account!, 'update');
  project.name = input.name;
  project.project_manager_id = input.project_manager_id;
  project.project_customer_reference_number = input.project_customer_reference_number;
  if (input.purchase_order_number !== undefined) project.purchase_order_number = input.purchase_order_number;
  project.revision += 1;
  project.updated_at = ctx.clock.iso();
  pinWriteVersion(project, ctx.version);
  return ok({ id: project.id, [humanReadableIdField(ctx.version)]: project.human_readable_id }, { etag: projectEtag(project) });
}

/** The reference's ProjectOverview. */
function projectOverview(ctx: RequestContext) {
  const project = requireProject(ctx);
  const groups = Object.values(ctx.store.data.target_groups).filter((tg) => tg.project_id === project.id);
  const overview: Record<string, unknown> = {
    id: project.id,
    [humanReadableIdField(ctx.version)]: project.human_readable_id,
    name: project.name,
    account_id: project.account_id,
    status: 'active',
    statistics: projectStatistics(groups),
    project_manager_id: project.project_manager_id,
    created_at: project.created_at,
  };
  if (project.project_customer_reference_number !== null) overview.project_customer_reference_number = project.project_customer_reference_number;
  return ok(overview);
}

export const projectsRoutes: RouteModule = {
  name: 'projects',
  routes: [
    { method: 'GET', path: PROJECTS, handler: listProjects },
    { method: 'POST', path: PROJECTS, idempotent: true, handler: createProject },
    { method: 'GET', path: PROJECT, handler: (ctx) => { const p = requireProject(ctx); return ok(renderProject(p, ctx.version), { etag: projectEtag(p) }); } },
    { method: 'PUT', path: PROJECT, idempotent: true, handler: updateProject },
    { method: 'GET', path: `${PROJECT}/overview`, handler: projectOverview },
  ],
};
