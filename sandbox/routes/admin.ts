// The admin surface under /_sandbox (never part of the real API; no auth, no faults).
import { parseFaults } from '../core/faults';
import { noContent, ok, type RouteModule } from '../core/route-module';
import type { SandboxStateData } from '../core/state-records';
import type { SandboxControls } from '../server';

export function createAdminRoutes(controls: SandboxControls): RouteModule {
  return {
    name: 'admin',
    routes: [
      { method: 'GET', path: '/_sandbox/info', handler: (ctx) => ok(ctx.info) },
      { method: 'GET', path: '/_sandbox/requests', handler: () => ok({ data: controls.requestLog.list() }) },
      {
        method: 'GET',
        path: '/_sandbox/state',
        handler: (ctx) => {
          ctx.jobs.settleDue();
          return ok(describeState(ctx.store.snapshot()));
        },
      },
      { method: 'GET', path: '/_sandbox/faults', handler: () => ok(controls.faults()) },
      {
        method: 'POST',
        path: '/_sandbox/faults',
        body: 'optional-json',
        handler: (ctx) => {
          const faults = parseFaults(ctx.body ?? {});
          controls.setFaults(faults);
          return ok(faults);
        },
      },
      {
        method: 'POST',
        path: '/_sandbox/reset',
        body: 'none',
        handler: () => {
          controls.reset();
          return noContent();
        },
      },
    ],
  };
}

/** Counts and records of every resource; the token signing key stays out. */
export function describeState(data: SandboxStateData) {
  const { token_signing_key: _secret, ...records } = data;
  const counts: Record<string, number> = {
    projects: Object.keys(data.projects).length,
    target_groups: Object.keys(data.target_groups).length,
    exclusion_groups: Object.keys(data.exclusion_groups).length,
    jobs: Object.keys(data.jobs).length,
    fielding_runs: Object.keys(data.fielding_runs).length,
    idempotency_keys: Object.keys(data.idempotency).length,
    excluded_ids: Object.values(data.id_exclusion_lists).reduce(
      (n, l) => n + l.rsid.length + l.access_respondent_guid.length + l.cid.length,
      0,
    ),
    recontact_respondents: Object.values(data.recontact_respondents).reduce(
      (n, l) => n + l.rsid.length + l.access_respondent_guid.length,
      0,
    ),
  };
  return { counts, records };
}
