// The HTTP pipeline: route match -> faults -> auth -> version -> account -> body -> idempotency ->
// handler -> commit (idempotency record, state file, drop fault) -> response + request log.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { newUlid } from './core/ulid';
import { performance } from 'node:perf_hooks';
import { ApiError, payloadTooLarge, unsupportedMediaType, badRequest } from './core/api-error';
import { JSON_BODY_LIMIT_BYTES, MULTIPART_BODY_LIMIT_BYTES, readBody } from './core/body-reader';
import { EventBus } from './core/event-bus';
import { DEFAULT_FAULTS, type Faults } from './core/faults';
import { IDEMPOTENCY_HEADER, idempotencyFingerprint, lookupIdempotent, rememberIdempotent, validateIdempotencyKey } from './core/idempotency';
import { JobScheduler } from './core/job-scheduler';
import { MultipartError, multipartBoundary, parseMultipart, type MultipartForm } from './core/multipart';
import { createPrng, type Prng } from './core/prng';
import { RequestLog } from './core/request-log';
import type { BodyMode, HttpMethod, Reply, RequestContext, RouteModule, SandboxInfo, SandboxServices } from './core/route-module';
import { RouteTable } from './core/route-table';
import { SEEDED_ACCOUNTS, SEEDED_CREDENTIALS, findSeededAccount } from './core/seed-data';
import { StateStore } from './core/state-store';
import { TickRegistry } from './core/tick-registry';
import { verifyBearer } from './core/token-service';
import { CURRENT_VERSION, isApiVersion, type ApiVersion } from './core/versioning';
import type { SandboxDialect } from './core/dialect';
import { CALENDAR_PATH } from './routes/calendar';

export const ADMIN_PREFIX = '/_sandbox';
export const AUTH_PREFIX = '/auth';

type Surface = 'admin' | 'auth' | 'api' | 'other';

export interface SandboxServerOptions {
  host: string;
  port: number;
  stateFile?: string;
  faults?: Partial<Faults>;
  clock?: () => number;
  versionHeader: string;
  dialect: SandboxDialect;
  quiet: boolean;
}

/** Operations of the admin surface and of RunningSandbox. */
export interface SandboxControls {
  faults(): Faults;
  setFaults(faults: Faults): void;
  reset(): void;
  requestLog: RequestLog;
}

export class SandboxServer {
  readonly services: SandboxServices;
  readonly requestLog = new RequestLog();
  readonly table = new RouteTable();
  private currentFaults: Faults;
  private readonly prng: Prng;
  private readonly http: Server;
  private readonly cleanups: Array<() => void> = [];
  /** Set by close(): from then on nothing is persisted. */
  private closed = false;
  private readonly versionHeader: string;
  private readonly opts: SandboxServerOptions;
  private readonly info: SandboxInfo;

  constructor(opts: SandboxServerOptions, buildModules: (controls: SandboxControls) => RouteModule[]) {
    this.opts = opts;
    this.versionHeader = opts.versionHeader.toLowerCase();
    this.currentFaults = { ...DEFAULT_FAULTS, ...opts.faults };
    this.prng = createPrng(this.currentFaults.seed);
    const now = opts.clock ?? Date.now;
    const store = new StateStore(opts.stateFile);
    // Nothing is written once the sandbox closed: a webhook delivery or a job that ends after close() must not
    // write a state file whose directory its owner may have removed already.
    const commit = () => {
      if (!this.closed) store.persist();
    };
    const log = (message: string) => {
      if (!opts.quiet) process.stderr.write(`[sandbox] ${message}\n`);
    };
    this.info = {
      base_url: '',
      auth_url: '',
      ...SEEDED_CREDENTIALS,
      dialect: opts.dialect.name,
      version_header: opts.versionHeader,
      accounts: SEEDED_ACCOUNTS.map((a) => ({
        account_id: a.account_id,
        business_unit_ids: [...a.business_unit_ids],
        project_manager_ids: [...a.project_manager_ids],
        features: [...a.features],
      })),
    };
    this.services = {
      store,
      events: new EventBus(),
      jobs: new JobScheduler(store, now, commit),
      ticks: new TickRegistry(now, (name, err) => log(`tick ${name} failed: ${(err as Error).message}`)),
      random: this.prng,
      clock: { now, iso: () => new Date(now()).toISOString() },
      faults: () => this.currentFaults,
      info: this.info,
      dialect: opts.dialect,
      credentials: { ...SEEDED_CREDENTIALS },
      newId: () => newUlid(now()),
      commit,
      log,
    };
    const controls: SandboxControls = {
      faults: () => this.currentFaults,
      setFaults: (faults) => {
        this.currentFaults = faults;
        this.prng.reseed(faults.seed);
      },
      reset: () => this.reset(),
      requestLog: this.requestLog,
    };
    for (const module of buildModules(controls)) {
      for (const route of module.routes) if (!route.dialects || route.dialects.includes(opts.dialect.name)) this.table.add(route);
      const cleanup = module.init?.(this.services);
      if (cleanup) this.cleanups.push(cleanup);
    }
    this.http = createServer((req, res) => void this.handle(req, res));
    this.http.keepAliveTimeout = 5_000;
  }

  async listen(): Promise<SandboxInfo> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const address = this.http.address();
    if (!address || typeof address === 'string') throw new Error('sandbox server has no TCP address');
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    this.info.base_url = `http://${host}:${address.port}`;
    this.info.auth_url = `${this.info.base_url}${AUTH_PREFIX}`;
    this.services.jobs.armAll();
    this.services.ticks.start();
    return this.info;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.services.ticks.stop();
    this.services.jobs.stopAll();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.services.events.clear();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  reset(): void {
    this.services.jobs.stopAll();
    this.services.store.reset();
    this.currentFaults = { ...DEFAULT_FAULTS };
    this.prng.reseed(this.currentFaults.seed);
    this.requestLog.clear();
    this.services.events.emit('sandbox.reset', {});
  }

  setFaults(faults: Faults): void {
    this.currentFaults = faults;
    this.prng.reseed(faults.seed);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let path = '/';
    let query = new URLSearchParams();
    try {
      const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
      path = url.pathname;
      query = url.searchParams;
    } catch {
      // keep defaults; the route match below answers 404
    }
    const surface = surfaceOf(path);
    const entry = {
      method,
      path,
      route: null as string | null,
      status: 0,
      api_version: null as string | null,
      idempotency_key_present: typeof req.headers[IDEMPOTENCY_HEADER] === 'string',
      dropped: false,
      time: this.services.clock.iso(),
      duration_ms: 0,
    };
    let reply: Reply;
    let dropped = false;
    try {
      const result = await this.process(req, method, path, query, surface, entry);
      reply = result.reply;
      dropped = result.drop;
    } catch (err) {
      reply = this.errorReply(err, path);
    }
    entry.status = reply.status;
    entry.dropped = dropped;
    entry.duration_ms = Math.round(performance.now() - started);
    if (surface !== 'admin' || path !== `${ADMIN_PREFIX}/requests`) this.requestLog.add(entry);
    if (dropped) {
      req.socket.destroy();
      return;
    }
    this.send(res, reply);
  }

  private async process(
    req: IncomingMessage,
    method: string,
    path: string,
    query: URLSearchParams,
    surface: Surface,
    entry: { route: string | null; api_version: string | null },
  ): Promise<{ reply: Reply; drop: boolean }> {
    const faults = this.currentFaults;
    const faultable = surface === 'api' || surface === 'auth';
    if (faultable) {
      if (faults.latency_ms > 0) await new Promise((r) => setTimeout(r, faults.latency_ms));
      if (this.prng.chance(faults.rate_limit_rate)) {
        req.resume();
        throw new ApiError(429, 'rate_limited', 'Too many requests; retry after the Retry-After delay.', {
          headers: { 'retry-after': String(faults.retry_after_seconds) },
        });
      }
      if (this.prng.chance(faults.error_rate)) {
        req.resume();
        throw new ApiError(503, 'service_unavailable', 'The service is temporarily unavailable (injected fault); retry later.');
      }
    }
    const match = this.table.match(method, path);
    if (match.kind === 'not_found') {
      req.resume();
      throw new ApiError(404, 'not_found_error', `No resource at ${method} ${path}.`);
    }
    if (match.kind === 'method_not_allowed') {
      req.resume();
      throw new ApiError(405, 'method_not_allowed_error', `${method} is not allowed on ${path}.`, {
        headers: { allow: match.allowed.join(', ') },
      });
    }
    const { route, params } = match;
    entry.route = route.path;
    const header = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    const services = this.services;
    let version: ApiVersion = CURRENT_VERSION;
    if (surface === 'api') {
      verifyBearer(header('authorization'), services.store.data.token_signing_key, services.credentials.audience, services.clock.now());
      const raw = header(this.versionHeader);
      entry.api_version = raw ?? null;
      if (raw === undefined || raw === '') {
        throw new ApiError(403, 'required_header_missing', `The ${this.opts.versionHeader} header is required.`);
      }
      if (!isApiVersion(raw)) {
        throw new ApiError(400, 'unsupported_api_version', `Version ${JSON.stringify(raw)} is not supported; use one of 2025-02-17, 2025-05-27, 2025-12-18.`, {
          invalidParams: [{ name: this.opts.versionHeader, reason: 'unknown version' }],
        });
      }
      version = raw;
      if (route.versions && !route.versions.includes(version)) {
        throw new ApiError(404, 'not_found_error', `${method} ${route.path} does not exist in version ${version}.`);
      }
    }
    let account = null;
    if ('account_id' in params) {
      account = findSeededAccount(params.account_id) ?? null;
      if (!account) throw new ApiError(404, 'not_found_error', `Account ${params.account_id} not found.`);
    }
    const mode: BodyMode = route.body ?? (method === 'GET' || method === 'DELETE' ? 'none' : 'json');
    const limit = mode === 'multipart' || mode === 'text' ? MULTIPART_BODY_LIMIT_BYTES : JSON_BODY_LIMIT_BYTES;
    const read = await readBody(req, limit).catch(() => {
      throw badRequest('The request body could not be read (connection aborted).');
    });
    if (read.tooLarge) {
      throw new ApiError(413, 'content_too_large_error', payloadTooLarge(limit).message, {
        headers: { connection: 'close' },
      });
    }
    const contentType = header('content-type');
    let body: unknown = undefined;
    let form: MultipartForm | null = null;
    let text: string | undefined;
    let fingerprintBody: Buffer | string = read.body;
    if (mode === 'json' || (mode === 'optional-json' && read.body.length > 0)) {
      body = parseJsonBody(read.body, contentType);
    } else if (mode === 'multipart') {
      const boundary = multipartBoundary(contentType);
      if (!boundary) throw unsupportedMediaType('multipart/form-data with a boundary');
      try {
        form = parseMultipart(read.body, boundary);
      } catch (err) {
        throw badRequest(`The multipart body is malformed: ${(err as MultipartError).message}.`, [{ name: 'body', reason: 'malformed multipart/form-data' }]);
      }
      fingerprintBody = JSON.stringify(form.parts.map((p) => [p.name, p.data.toString('base64')]));
    } else if (mode === 'text') {
      text = read.body.toString('utf8');
    } else if (mode === 'none') {
      fingerprintBody = '';
    }
    services.jobs.settleDue();
    const ctx: RequestContext = {
      ...services,
      method: method as HttpMethod,
      path,
      template: route.path,
      params,
      query,
      headers: req.headers,
      version,
      account,
      body,
      form,
      text,
      header,
    };
    const idemKey = route.idempotent ? header(IDEMPOTENCY_HEADER) : undefined;
    let fingerprint = '';
    if (idemKey !== undefined && account) {
      validateIdempotencyKey(idemKey);
      const sortedQuery = new URLSearchParams([...query.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
      fingerprint = idempotencyFingerprint(method, path, `${version}\n${sortedQuery}`, fingerprintBody);
      const stored = lookupIdempotent(services.store, String(account.account_id), idemKey, fingerprint);
      if (stored) {
        // An answer without a body (e.g. launch-from-draft's 201 with only Location) is replayed without one.
        return { reply: { status: stored.status, body: stored.body ?? undefined, headers: { ...stored.headers, 'idempotent-replayed': 'true' } }, drop: false };
      }
    }
    const reply = await route.handler(ctx);
    const committed = reply.status >= 200 && reply.status < 300 && method !== 'GET';
    if (committed && surface !== 'admin') {
      if (idemKey !== undefined && account) {
        rememberIdempotent(services.store, String(account.account_id), idemKey, {
          fingerprint,
          status: reply.status,
          headers: reply.headers ?? {},
          body: reply.body ?? null,
          created_at: services.clock.iso(),
        });
      }
      if (!this.closed) services.store.persist();
      if (faultable && this.prng.chance(this.currentFaults.drop_after_commit_rate)) return { reply, drop: true };
    }
    return { reply, drop: false };
  }

  private errorReply(err: unknown, path: string): Reply {
    let error: ApiError;
    if (err instanceof ApiError) error = err;
    else {
      this.services.log(`internal error: ${(err as Error)?.message ?? String(err)}`);
      error = new ApiError(500, 'unexpected_internal_error', 'The sandbox hit an internal error.');
    }
    // The intelligent calendar's error objects are the dialect's (spec Errors: bad_request, unauthorized,
    // internal_server_error; the reference: its standard objects, authorization_error for 401); everywhere
    // else the objects are the reference's (bad_request_error, …).
    const calendarName = path.startsWith(CALENDAR_PATH) ? this.opts.dialect.calendarErrorObjects[error.object] : undefined;
    const body = error.toBody();
    if (calendarName && body && typeof body === 'object') (body as { object: string }).object = calendarName;
    return { status: error.status, body, headers: error.headers };
  }

  private send(res: ServerResponse, reply: Reply): void {
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    let payload: string | undefined;
    if (reply.text) {
      headers['content-type'] = reply.text.contentType;
      payload = reply.text.content;
    } else if (reply.body !== undefined && reply.status !== 204) {
      headers['content-type'] = 'application/json; charset=utf-8';
      payload = JSON.stringify(reply.body);
    }
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    res.writeHead(reply.status, headers);
    res.end(payload);
  }
}

function surfaceOf(path: string): Surface {
  if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) return 'admin';
  if (path.startsWith(`${AUTH_PREFIX}/`)) return 'auth';
  if (path.startsWith('/v1/')) return 'api';
  return 'other';
}

function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) throw badRequest('A JSON request body is required.', [{ name: 'body', reason: 'is required' }]);
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw unsupportedMediaType('application/json');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('The request body is not valid JSON.', [{ name: 'body', reason: 'malformed JSON' }]);
  }
}
