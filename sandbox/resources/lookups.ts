// Account-scoped lookups of path resources; anything outside the account is a 404.
import { notFound } from '../core/api-error';
import type { RequestContext } from '../core/route-module';
import type { ProjectRecord, TargetGroupRecord } from '../core/state-records';

export function requireProject(ctx: RequestContext, projectId = ctx.params.project_id): ProjectRecord {
  const project = ctx.store.data.projects[projectId];
  if (!project || project.account_id !== ctx.account?.account_id) throw notFound(`Project ${projectId} not found.`);
  return project;
}

/** The target group of `{project_id}`/`{target_group_id}` (or of `{target_group_id}` alone). */
export function requireTargetGroup(ctx: RequestContext, targetGroupId = ctx.params.target_group_id): TargetGroupRecord {
  const projectId = ctx.params.project_id;
  if (projectId !== undefined) requireProject(ctx, projectId);
  const tg = ctx.store.data.target_groups[targetGroupId];
  if (!tg || tg.account_id !== ctx.account?.account_id || (projectId !== undefined && tg.project_id !== projectId)) {
    throw notFound(`Target group ${targetGroupId} not found.`);
  }
  return tg;
}
