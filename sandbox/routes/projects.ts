// Projects: list, create, get, update (PUT), overview (spec: Endpoints › Projects).
import { keyedListBody, parsePageRequest, paginate } from '../core/pagination';
import { created, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { ProjectRecord, TargetGroupStatus } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireProject } from '../resources/lookups';
import { deriveHumanReadableId, readProjectInput, renderProject, renderProjectListItem } from '../resources/project-wire';
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

function createProject(ctx: RequestContext) {
  const input = readProjectInput(ctx.body, ctx.version, ctx.account!);
  const now = ctx.clock.iso();
  const id = ctx.newId('prj');
  const project: ProjectRecord = {
    id,
    seq: ctx.store.nextSeq(),
    account_id: ctx.account!.account_id,
    name: input.name,
    human_readable_id: input.human_readable_id ?? deriveHumanReadableId(input.name, `project_${id.slice(-8).toLowerCase()}`),
    project_customer_reference_number: input.project_customer_reference_number,
    purchase_order_number: input.purchase_order_number ?? null,
    business_unit_id: input.business_unit_id,
    pinned_version: null,
    created_at: now,
    updated_at: now,
  };
  pinWriteVersion(project, ctx.version);
  ctx.store.data.projects[id] = project;
  return created(renderProject(project, ctx.version), { location: ctx.path + '/' + encodeURIComponent(id) });
}

function updateProject(ctx: RequestContext) {
  const project = requireProject(ctx);
  assertWriteVersionAllowed(project, ctx.version, 'project');
  const input = readProjectInput(ctx.body, ctx.version, ctx.account!);
  project.name = input.name;
  if (input.human_readable_id !== undefined) project.human_readable_id = input.human_readable_id;
  project.project_customer_reference_number = input.project_customer_reference_number;
  if (input.purchase_order_number !== undefined) project.purchase_order_number = input.purchase_order_number;
  project.business_unit_id = input.business_unit_id;
  project.updated_at = ctx.clock.iso();
  pinWriteVersion(project, ctx.version);
  return ok(renderProject(project, ctx.version));
}

function projectOverview(ctx: RequestContext) {
  const project = requireProject(ctx);
  const groups = Object.values(ctx.store.data.target_groups).filter((tg) => tg.project_id === project.id);
  const byStatus: Record<TargetGroupStatus, number> = { draft: 0, live: 0, paused: 0, completed: 0 };
  for (const tg of groups) byStatus[tg.status] += 1;
  return ok({
    ...renderProject(project, ctx.version),
    target_group_count: groups.length,
    target_groups_by_status: byStatus,
    filling_goal_total: groups.reduce((n, tg) => n + tg.filling_goal, 0),
    completes_total: groups.reduce((n, tg) => n + tg.metrics.completes, 0),
  });
}

export const projectsRoutes: RouteModule = {
  name: 'projects',
  routes: [
    { method: 'GET', path: PROJECTS, handler: listProjects },
    { method: 'POST', path: PROJECTS, idempotent: true, handler: createProject },
    { method: 'GET', path: PROJECT, handler: (ctx) => ok(renderProject(requireProject(ctx), ctx.version)) },
    { method: 'PUT', path: PROJECT, handler: updateProject },
    { method: 'GET', path: `${PROJECT}/overview`, handler: projectOverview },
  ],
};
