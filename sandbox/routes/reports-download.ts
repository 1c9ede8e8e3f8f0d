// GET P/reports/download: versions before 2025-12-18 only (removed in 2025-12-18 -> 404).
// A CSV of the account's target groups (optionally of one project via ?project_id=).
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { LEGACY_VERSIONS } from '../core/versioning';
import { requireProject } from '../resources/lookups';
import { P } from './paths';

export const REPORT_COLUMNS = ['project_id', 'target_group_id', 'name', 'status', 'filling_goal', 'completes', 'prescreens'];

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

function downloadReport(ctx: RequestContext) {
  const projectId = ctx.query.get('project_id');
  if (projectId !== null) requireProject(ctx, projectId);
  const rows = Object.values(ctx.store.data.target_groups)
    .filter((tg) => tg.account_id === ctx.account!.account_id && (projectId === null || tg.project_id === projectId))
    .sort((a, b) => a.seq - b.seq)
    .map((tg) => [tg.project_id, tg.id, tg.name, tg.status, tg.filling_goal, tg.metrics.completes, tg.metrics.prescreens].map(csvCell).join(','));
  const reply = ok(undefined);
  reply.text = { contentType: 'text/csv; charset=utf-8', content: [REPORT_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n' };
  return reply;
}

export const reportsDownloadRoutes: RouteModule = {
  name: 'reports-download',
  routes: [{ method: 'GET', path: `${P}/reports/download`, versions: LEGACY_VERSIONS, handler: downloadReport }],
};
