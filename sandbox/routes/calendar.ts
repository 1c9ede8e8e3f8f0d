// Intelligent calendar (spec: Resources › Intelligent calendar suggestions; Authentication 9; Errors).
//   GET  /v1/demand/intelligent-calendar/suggest-time-range?locale&days | ?locale&start&end
//   POST /v1/demand/intelligent-calendar/suggest-days
// Errors on these endpoints use the dialect's objects (core/dialect.ts, applied by the server): the spec's
// bad_request, unauthorized and internal_server_error, or the reference's bad_request_error, authorization_error
// and unexpected_internal_error. 401 covers missing or invalid credentials (the core's bearer check) and a caller without
// the intelligent-calendar role (sandbox role model: tokens whose client is listed in
// CLIENTS_WITHOUT_CALENDAR_ROLE, or whose `roles` claim is present without "intelligent_calendar").

import { ApiError } from '../core/api-error';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { readSuggestDaysRequest, suggestDays } from '../model/suggest-days';
import { readTimeRangeQuery, suggestTimeRange } from '../model/suggest-time-range';

export const CALENDAR_PATH = '/v1/demand/intelligent-calendar';
export const CALENDAR_ROLE = 'intelligent_calendar';
/** Client ids whose tokens lack the intelligent-calendar role. */
export const CLIENTS_WITHOUT_CALENDAR_ROLE: readonly string[] = ['studyflow-sandbox-no-calendar'];

interface BearerClaims {
  sub?: unknown;
  roles?: unknown;
}

/** The claims of the (already verified) bearer token. */
function bearerClaims(ctx: RequestContext): BearerClaims {
  const token = /^Bearer\s+(\S+)$/i.exec(ctx.header('authorization')?.trim() ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return {};
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as BearerClaims;
  } catch {
    return {};
  }
}

export function hasCalendarRole(claims: BearerClaims): boolean {
  if (typeof claims.sub === 'string' && CLIENTS_WITHOUT_CALENDAR_ROLE.includes(claims.sub)) return false;
  if (claims.roles !== undefined) return Array.isArray(claims.roles) && claims.roles.includes(CALENDAR_ROLE);
  return true;
}

function requireCalendarRole(ctx: RequestContext): void {
  if (!hasCalendarRole(bearerClaims(ctx))) {
    throw new ApiError(401, 'unauthorized', 'The caller lacks the role required for the intelligent calendar.');
  }
}

export const calendarRoutes: RouteModule = {
  name: 'calendar',
  routes: [
    {
      method: 'GET',
      path: `${CALENDAR_PATH}/suggest-time-range`,
      handler: (ctx) => {
        requireCalendarRole(ctx);
        const now = ctx.clock.now();
        const suggestion = suggestTimeRange(readTimeRangeQuery(ctx.query, now), now);
        // The reference's answer names the window start/end; the spec's dialect suggested_start/suggested_end
        // (spec line 142). Nothing else: the query's locale and days are not echoed (neither names them).
        const fields = ctx.dialect.timeRangeFields;
        return ok({ [fields.start]: suggestion.suggested_start, [fields.end]: suggestion.suggested_end });
      },
    },
    {
      method: 'POST',
      path: `${CALENDAR_PATH}/suggest-days`,
      handler: (ctx) => {
        requireCalendarRole(ctx);
        return ok(suggestDays(readSuggestDaysRequest(ctx.body)));
      },
    },
  ],
};
