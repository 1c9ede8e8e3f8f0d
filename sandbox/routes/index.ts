// The central route list. To add a route module: import it and append it to `apiRouteModules`.
import type { RouteModule } from '../core/route-module';
import type { SandboxControls } from '../server';
import { accountsRoutes } from './accounts';
import { activityExclusionsRoutes } from './activity-exclusions';
import { createAdminRoutes } from './admin';
import { authTokenRoutes } from './auth-token';
import { exclusionGroupsRoutes } from './exclusion-groups';
import { feasibilityRoutes } from './feasibility';
import { fieldingRoutes } from './fielding';
import { liveTargetGroupsRoutes } from './live-target-groups';
import { idExclusionsRoutes } from './id-exclusions';
import { legacyExclusionsRoutes } from './legacy-exclusions';
import { projectsRoutes } from './projects';
import { recontactsRoutes } from './recontacts';
import { reportsDownloadRoutes } from './reports-download';
import { targetGroupsRoutes } from './target-groups';
import { profilesRoutes } from './profiles';
import { calendarRoutes } from './calendar';
import { webhooksRoutes } from './webhooks';
import { reportingRoutes } from './reporting';
import { reconciliationsRoutes } from './reconciliations';
import { reportsRoutes } from './reports';

/** Route modules of the /v1 API (order does not matter; literal path segments win over parameters). */
export const apiRouteModules: RouteModule[] = [
  accountsRoutes,
  projectsRoutes,
  targetGroupsRoutes,
  activityExclusionsRoutes,
  idExclusionsRoutes,
  legacyExclusionsRoutes,
  recontactsRoutes,
  exclusionGroupsRoutes,
  fieldingRoutes,
  liveTargetGroupsRoutes,
  reportsDownloadRoutes,
  feasibilityRoutes,
  profilesRoutes,
  calendarRoutes,
  webhooksRoutes,
  reportingRoutes,
  reconciliationsRoutes,
  reportsRoutes,
];

export function buildRouteModules(controls: SandboxControls): RouteModule[] {
  return [createAdminRoutes(controls), authTokenRoutes, ...apiRouteModules];
}
