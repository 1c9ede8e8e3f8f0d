// Test helper: a thin fetch client for the sandbox (token cache, version header, JSON in/out).
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/index';

export const V_OLD = '2025-02-17';
export const V_MID = '2025-05-27';
export const V_NEW = '2025-12-18';
export const ACCOUNT = 1001;
export const BASIC_ACCOUNT = 1002;
export const P = (account = ACCOUNT) => `/v1/demand/accounts/${account}`;

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body (string/bytes/FormData); skips JSON encoding. */
  raw?: RequestInit['body'];
  headers?: Record<string, string>;
  /** API version header; null leaves it out. */
  version?: string | null;
  /** Bearer token; null leaves the header out. */
  token?: string | null;
  contentType?: string;
}

export class SandboxTestClient {
  private cachedToken: string | null = null;
  private keys = 0;
  constructor(readonly sb: RunningSandbox) {}

  tokenBody(overrides: Record<string, unknown> = {}) {
    const i = this.sb.info;
    return { client_id: i.client_id, client_secret: i.client_secret, grant_type: 'client_credentials', auth_scopes: 'app:api', audience: i.audience, ...overrides };
  }

  async requestToken(overrides: Record<string, unknown> = {}): Promise<ApiResponse> {
    return this.send('POST', `${this.sb.authUrl}/oauth/token`, { body: this.tokenBody(overrides), version: null, token: null });
  }

  async token(): Promise<string> {
    if (!this.cachedToken) {
      const res = await this.requestToken();
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      this.cachedToken = res.body.access_token as string;
    }
    return this.cachedToken;
  }

  async req(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const token = opts.token === undefined ? await this.token() : opts.token;
    return this.send(method, `${this.sb.baseUrl}${path}`, { ...opts, token });
  }

  async send(method: string, url: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    const version = opts.version === undefined ? V_NEW : opts.version;
    // The sandbox's version header: Svc-API-Version in the spec's dialect, Cint-API-Version in the cint dialect.
    if (version !== null) headers[this.sb.info.version_header] = version;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: RequestInit['body'] = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    if (opts.contentType) headers['content-type'] = opts.contentType;
    Object.assign(headers, opts.headers);
    // Redirects are answers to check (GET TG's 301 once launched), never followed.
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: any = undefined;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  admin(method: string, path: string, body?: unknown) {
    return this.send(method, `${this.sb.baseUrl}/_sandbox${path}`, { body, version: null, token: null });
  }

  async state(): Promise<any> {
    return (await this.admin('GET', '/state')).body;
  }

  /** create_project (202 `{id}`, idempotency-key required), then get_project_by_id: the project as the API holds it. */
  async createProject(overrides: Record<string, unknown> = {}, opts: RequestOptions & { account?: number } = {}) {
    const res = await this.req('POST', `${P(opts.account)}/projects`, {
      ...opts,
      headers: { 'idempotency-key': `create-project-${++this.keys}`, ...opts.headers },
      body: { name: 'Brand tracker', project_manager_id: projectManager(opts.account), project_customer_reference_number: 'PO-1', ...overrides },
    });
    if (res.status !== 202) throw new Error(`createProject: ${res.status} ${res.text}`);
    const read = await this.req('GET', `${P(opts.account)}/projects/${res.body.id}`, { version: opts.version });
    if (read.status !== 200) throw new Error(`createProject read: ${read.status} ${read.text}`);
    return read.body;
  }

  async createTargetGroup(projectId: string, overrides: Record<string, unknown> = {}, opts: RequestOptions & { account?: number } = {}) {
    // The goal under the sandbox's dialect's name: the spec's filling_goal, or the reference's completes_goal (2025-12-18).
    const body = draftBody(overrides, opts.account);
    const { filling_goal: goal, ...rest } = body;
    const inDialect = this.sb.dialect === 'cint' && (opts.version === undefined || opts.version === V_NEW) && 'filling_goal' in body ? { ...rest, completes_goal: goal } : body;
    const res = await this.req('POST', `${P(opts.account)}/projects/${projectId}/target-groups`, { ...opts, body: inDialect });
    if (res.status !== 201) throw new Error(`createTargetGroup: ${res.status} ${res.text}`);
    // create_target_group answers {id} only; the draft as the API holds it is a get_target_group away.
    const read = await this.req('GET', `${P(opts.account)}/projects/${projectId}/target-groups/${res.body.id}`, { version: opts.version });
    if (read.status !== 200) throw new Error(`createTargetGroup read: ${read.status} ${read.text}`);
    // get_target_group carries no id (reference: FetchTargetGroupResponse): the create's is added here.
    return { id: res.body.id as string, ...read.body };
  }

  /**
   * A target group's status as the reference keeps it: GET TG answers a draft (200) or, once launched, 301 to
   * its details; the status of a launched one is in TG/overview.
   */
  async tgStatus(tgPath: string, opts: RequestOptions = {}): Promise<string> {
    const read = await this.req('GET', tgPath, opts);
    if (read.status === 200) return 'draft';
    if (read.status !== 301) throw new Error(`tgStatus: GET TG answered ${read.status} ${read.text}`);
    const overview = await this.req('GET', `${tgPath}/overview`, opts);
    if (overview.status !== 200) throw new Error(`tgStatus: overview answered ${overview.status} ${overview.text}`);
    return overview.body.status as string;
  }

  /** Creates a project and a draft target group; returns ids and the TG path. */
  async projectWithTargetGroup(tgOverrides: Record<string, unknown> = {}, opts: RequestOptions = {}) {
    const project = await this.createProject({}, opts);
    const tg = await this.createTargetGroup(project.id, tgOverrides, opts);
    return { project, tg, tgPath: `${P()}/projects/${project.id}/target-groups/${tg.id}` };
  }

  upload(path: string, lines: string, entityType: string | null, opts: RequestOptions = {}) {
    const form = new FormData();
    form.append('file', new Blob([lines], { type: 'text/plain' }), 'ids.txt');
    const query = entityType === null ? '' : `?entity_type=${entityType}`;
    return this.req('POST', `${path}${query}`, { ...opts, raw: form });
  }

  /** Polls a job status path until it leaves Processing. */
  async waitForJob(path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    for (let i = 0; i < 200; i++) {
      const res = await this.req('GET', path, opts);
      if (res.status !== 200 || res.body.status !== 'Processing') return res;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`job ${path} still Processing`);
  }
}

/** The seeded project manager (a UUID) of an account. */
export function projectManager(account?: number): string {
  return account === BASIC_ACCOUNT ? '6f1c2a4e-3101-4c8e-9d2b-000000003101' : '6f1c2a4e-3001-4c8e-9d2b-000000003001';
}

/** The reference's default: the whole open exchange. */
export const OPEN_EXCHANGE = { open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] } };

/** A draft body with every field the reference requires on create and update (and the spec's filling_goal). */
export function draftBody(overrides: Record<string, unknown> = {}, account?: number) {
  return {
    name: 'Adults 18-65',
    business_unit_id: account === BASIC_ACCOUNT ? '2101' : '2001',
    locale: 'eng_us',
    fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' },
    fielding_assistant_assignment: {},
    allocations: OPEN_EXCHANGE,
    expected_incidence_rate: 0.5,
    expected_length_of_interview_minutes: 10,
    filling_goal: 200,
    project_manager_id: projectManager(account),
    collects_pii: false,
    ...overrides,
  };
}

/** A sandbox for the conformance tests: the spec's dialect unless `opts.dialect` says otherwise (they test the spec's rules). */
export async function startTestSandbox(opts: SandboxOptions = {}) {
  const sb = await startSandbox({ quiet: true, faults: { job_duration_ms: 20 }, dialect: 'spec', ...opts });
  return { sb, api: new SandboxTestClient(sb) };
}

/** Asserts that a response is an error with the standard body. */
export function errorShape(res: ApiResponse) {
  return { status: res.status, object: res.body?.object, hasId: typeof res.body?.id === 'string' && /^[0-9a-f-]{36}$/.test(res.body.id), detail: typeof res.body?.detail };
}

export const paramNames = (res: ApiResponse): string[] => (res.body?.invalid_params ?? []).map((p: { name: string }) => p.name);
