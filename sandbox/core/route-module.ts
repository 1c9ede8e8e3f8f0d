// The contract between the server and the route modules in sandbox/routes/.
import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxDialect, SandboxDialectName } from './dialect';
import type { EventBus } from './event-bus';
import type { Faults } from './faults';
import type { JobScheduler } from './job-scheduler';
import type { MultipartForm } from './multipart';
import type { Prng } from './prng';
import type { SeededAccount, SandboxCredentials } from './seed-data';
import type { StateStore } from './state-store';
import type { TickRegistry } from './tick-registry';
import type { ApiVersion } from './versioning';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** How the server reads the request body before the handler runs. */
export type BodyMode =
  /** JSON object required (400 when empty or malformed, 415 when not application/json). */
  | 'json'
  /** JSON when present; `ctx.body` is undefined for an empty body. */
  | 'optional-json'
  /** multipart/form-data, capped at 8 MiB; `ctx.form` holds the parts. */
  | 'multipart'
  /** Any body as UTF-8 text (e.g. text/csv), capped at 8 MiB; `ctx.text` holds it; the handler checks its type. */
  | 'text'
  /** Any body is read (capped) and ignored. */
  | 'none';

export interface SandboxClock {
  /** Milliseconds since the epoch (the `clock` option, or Date.now). */
  now(): number;
  /** `now()` as an ISO-8601 UTC string. */
  iso(): string;
}

export interface SandboxInfo {
  base_url: string;
  auth_url: string;
  audience: string;
  client_id: string;
  client_secret: string;
  /** The dialect the sandbox speaks (core/dialect.ts) and the version header it reads. */
  dialect: SandboxDialectName;
  version_header: string;
  accounts: Array<{ account_id: number; business_unit_ids: number[]; project_manager_ids: string[]; features: string[] }>;
}

/** What every route module (and its `init`) can use. */
export interface SandboxServices {
  store: StateStore;
  events: EventBus;
  jobs: JobScheduler;
  ticks: TickRegistry;
  random: Prng;
  clock: SandboxClock;
  faults(): Faults;
  info: SandboxInfo;
  /** The dialect the sandbox speaks (core/dialect.ts): the spec's (default) or the reference's (`cint`). */
  dialect: SandboxDialect;
  credentials: SandboxCredentials;
  /**
   * A new resource id in the reference's format: a ULID (26 characters of Crockford base32, the pattern
   * `^[0-9A-Z]{26}$` of ProjectID, TargetGroupID, ExclusionGroupID and the job ids). `kind` is for readers only.
   */
  newId(kind: string): string;
  /** Persists the state file; call after changing state outside a request (ticks, listeners). */
  commit(): void;
  /** Diagnostics to stderr (never tokens, bodies or respondent IDs). */
  log(message: string): void;
}

export interface RequestContext extends SandboxServices {
  method: HttpMethod;
  /** Path without query string. */
  path: string;
  /** The matched route template, e.g. `/v1/demand/accounts/{account_id}/projects/{project_id}`. */
  template: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Request version (/v1 routes); the current version elsewhere. */
  version: ApiVersion;
  /** The seeded account named by `{account_id}`, when the template has one (404 otherwise). */
  account: SeededAccount | null;
  /** Parsed JSON body (`json`/`optional-json` routes). */
  body: unknown;
  /** Parsed multipart form (`multipart` routes). */
  form: MultipartForm | null;
  /** The raw body as UTF-8 (`text` routes). */
  text?: string;
  /** A request header (case-insensitive), first value. */
  header(name: string): string | undefined;
}

export interface Reply {
  status: number;
  /** JSON-serialised unless `text` is set. */
  body?: unknown;
  /** A non-JSON body (e.g. CSV) with its content type. */
  text?: { contentType: string; content: string };
  headers?: Record<string, string>;
}

export interface RouteDefinition {
  method: HttpMethod;
  /** Full path template with `{param}` segments, e.g. `${P}/projects/{project_id}`. */
  path: string;
  /** Versions in which the route exists (default: all); other versions get 404. */
  versions?: readonly ApiVersion[];
  /** Dialects in which the route exists (default: both; core/dialect.ts); in the other the route is not served. */
  dialects?: readonly SandboxDialectName[];
  /** Default: `json` for POST/PUT/PATCH, `none` for GET/DELETE. */
  body?: BodyMode;
  /** Honours `Idempotency-Key` (creating POSTs). */
  idempotent?: boolean;
  handler(ctx: RequestContext): Reply | Promise<Reply>;
}

export interface RouteModule {
  name: string;
  routes: RouteDefinition[];
  /** Runs once at start: subscribe to events, define job kinds, register ticks. May return a cleanup. */
  init?(services: SandboxServices): void | (() => void);
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });
export const created = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 201, body, headers });
export const noContent = (headers?: Record<string, string>): Reply => ({ status: 204, headers });
