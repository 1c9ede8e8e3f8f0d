// Public entry point of the Demand Exchange API sandbox.
import type { Faults } from './core/faults';
import { parseFaults } from './core/faults';
import type { EventBus } from './core/event-bus';
import type { RequestLogEntry } from './core/request-log';
import type { SandboxInfo, SandboxServices } from './core/route-module';
import type { SandboxStateData } from './core/state-records';
import { DIALECTS, isSandboxDialect, type SandboxDialectName } from './core/dialect';
import { buildRouteModules } from './routes/index';
import { SandboxServer } from './server';

export type { Faults } from './core/faults';
export { DEFAULT_FAULTS } from './core/faults';
export type { SandboxInfo } from './core/route-module';
export type { RequestLogEntry } from './core/request-log';
export type { SandboxStateData } from './core/state-records';
export { API_VERSIONS, CURRENT_VERSION, type ApiVersion } from './core/versioning';
export { DIALECTS, SANDBOX_DIALECTS, isSandboxDialect, type SandboxDialect, type SandboxDialectName } from './core/dialect';

export interface SandboxOptions {
  /** TCP port; 0 (the default) picks a free port. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** JSON state file: loaded at start when it exists, rewritten atomically after every committed change. */
  stateFile?: string;
  /** Initial faults (over the defaults). `seed` makes every injected fault reproducible. */
  faults?: Partial<Faults>;
  /** Clock in ms since the epoch (tests); default Date.now. Drives token expiry, timestamps and job due times. */
  clock?: () => number;
  /**
   * The dialect (docs/sandbox.md, "Dialects"): `spec` (default) speaks the spec, its deviations included, as the
   * `sandbox` connection profile does; `cint` speaks the published reference exactly, as the `cint` profile does.
   */
  dialect?: SandboxDialectName;
  /** Name of the version header; default the dialect's (`Svc-API-Version` or `Cint-API-Version`). */
  versionHeader?: string;
  /** Suppress diagnostics on stderr. */
  quiet?: boolean;
}

export interface RunningSandbox {
  /** `http://127.0.0.1:<port>`; the API lives under `/v1`. */
  baseUrl: string;
  /** `{baseUrl}/auth`; tokens from `POST {authUrl}/oauth/token`. */
  authUrl: string;
  info: SandboxInfo;
  /** The dialect it speaks. */
  dialect: SandboxDialectName;
  close(): Promise<void>;
  /** A deep copy of every resource held. */
  state(): SandboxStateData;
  /** The request log (no tokens, no bodies). */
  requests(): RequestLogEntry[];
  /** Current faults. */
  faults(): Faults;
  /** Replaces the faults with the defaults overlaid by `faults` (validated like POST /_sandbox/faults). */
  setFaults(faults: Partial<Faults>): void;
  /** Empties all state, restores default faults, clears the request log (tokens stay valid). */
  reset(): void;
  /** Settles every job whose due time has passed on the sandbox clock. */
  settleJobs(): void;
  /** Runs every registered tick once. */
  runTicks(): Promise<void>;
  /** The internal event bus (target-group lifecycle events). */
  events: EventBus;
  /** The services handed to route modules (advanced tests). */
  services: SandboxServices;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const dialectName = opts.dialect ?? 'spec';
  if (!isSandboxDialect(dialectName)) throw new Error(`unknown sandbox dialect ${JSON.stringify(dialectName)} (expected spec or cint)`);
  const dialect = DIALECTS[dialectName];
  const initialFaults = opts.faults ? parseFaults(opts.faults) : undefined;
  const server = new SandboxServer(
    {
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      stateFile: opts.stateFile,
      faults: initialFaults,
      clock: opts.clock,
      versionHeader: opts.versionHeader ?? dialect.versionHeader,
      dialect,
      quiet: opts.quiet ?? false,
    },
    buildRouteModules,
  );
  const info = await server.listen();
  const services = server.services;
  return {
    baseUrl: info.base_url,
    authUrl: info.auth_url,
    info,
    dialect: dialectName,
    close: () => server.close(),
    state: () => services.store.snapshot(),
    requests: () => server.requestLog.list(),
    faults: () => ({ ...services.faults() }),
    setFaults: (faults) => server.setFaults(parseFaults(faults)),
    reset: () => server.reset(),
    settleJobs: () => services.jobs.settleDue(),
    runTicks: () => services.ticks.runAll(),
    events: services.events,
    services,
  };
}
