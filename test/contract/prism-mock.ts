// A mock of the real Demand API that nobody here wrote: Stoplight Prism (`prism mock --errors`) serving the
// published reference (normalised: test/contract/prism-reference.ts), in static mode (answers are the document's
// examples) or dynamic mode (`-d`: answers generated from its schemas, a fresh draw per request; with a seed, Prism
// reseeds each draw, so every request of an operation gets the same answer and a failure can be repeated).
// In front of it, on the same local port, a small recorder: it serves the token endpoint the reference does
// not have (`POST /oauth/token`, the spec's shape) and passes every other request to Prism unchanged, keeping
// each exchange (the request, Prism's answer, and Prism's reason when it refused the request) for the tests.
// Everything binds 127.0.0.1 on free ports; Prism runs under a watchdog that stops it when the test process
// goes away (its stdin closes) or after a time limit, so nothing outlives the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';

export type PrismMode = 'static' | 'dynamic';

/** Prism's reason for refusing a request. */
export interface PrismRefusal {
  title: string;
  detail: string;
  /** Each validation finding: where (e.g. `body.completes_goal`) and what. */
  validation: { location: string; message: string }[];
}

export interface PrismExchange {
  method: string;
  /** Path without the query. */
  path: string;
  /** The query string, without `?` ('' when none). */
  query: string;
  /** The request headers that matter for the contract (never the bearer token). */
  headers: Record<string, string>;
  /** The request body as sent (bytes), and as JSON when it was JSON. */
  body: Buffer;
  json?: unknown;
  status: number;
  answerHeaders: Record<string, string>;
  /** The answer, parsed when it was JSON; undefined when empty. */
  answer: unknown;
  /** Set when Prism refused the request, with its reason. */
  refusal?: PrismRefusal;
  /** Set when Prism's own answer broke the document (it then answers 500 instead): not the client's doing. */
  answerViolations?: string[];
}

export interface PrismMock {
  mode: PrismMode;
  /** STUDYFLOW_API_BASE_URL and STUDYFLOW_AUTH_URL: the recorder, which serves the token and forwards the rest. */
  baseUrl: string;
  authUrl: string;
  /** Every exchange with Prism so far, in order. */
  exchanges: PrismExchange[];
  tokenRequests: number;
  /** Sends a recorded request again (same method, path, query, headers and body) and records the new exchange. */
  replay(exchange: Pick<PrismExchange, 'method' | 'path' | 'query' | 'headers' | 'body'>): Promise<PrismExchange>;
  close(): Promise<void>;
}

/** Credentials the token endpoint takes; anything else gets the spec's 401. */
export const PRISM_CREDENTIALS = { clientId: 'studyflow-contract', clientSecret: 'prism-contract-secret', audience: 'https://api.cint.com' } as const;

/** Headers of a request kept in the exchange (and replayed). */
const KEPT_HEADERS = ['content-type', 'idempotency-key', 'if-match', 'cint-api-version', 'svc-api-version', 'accept', 'prefer'];
const PRISM_ERRORS = 'https://stoplight.io/prism/errors#';
/** The longest a Prism process may live, whatever happens to the test. */
const PRISM_MAX_LIFETIME_MS = 20 * 60_000;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The Prism command line in this checkout's node_modules (the pinned @stoplight/prism-cli). */
export function prismBin(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@stoplight/prism-cli/package.json');
  return path.join(path.dirname(pkg), 'dist', 'index.js');
}

// Runs Prism as its child and ends it when this watchdog's stdin closes (the test process went away) or
// after the lifetime; passes Prism's output through.
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [bin, maxMs, ...args] = process.argv.slice(1);
const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => { child.kill('SIGTERM'); setTimeout(() => { child.kill('SIGKILL'); process.exit(0); }, 2000).unref(); };
process.stdin.on('end', stop); process.stdin.on('close', stop); process.stdin.resume();
process.on('SIGTERM', stop);
setTimeout(stop, Number(maxMs)).unref();
child.on('exit', (code) => process.exit(code ?? 0));
`;

// A fresh connection per request: a kept-alive socket Prism has closed answers "other side closed".
const toPrism = new Agent({ pipelining: 0 });

async function startPrism(documentFile: string, mode: PrismMode, seed: string | undefined): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  const args = ['mock', documentFile, '--host', '127.0.0.1', '--port', String(port), '--errors', '--verboseLevel', 'error'];
  if (mode === 'dynamic') args.push('--dynamic', ...(seed ? ['--seed', seed] : []));
  const child = spawn(process.execPath, ['-e', WATCHDOG, prismBin(), String(PRISM_MAX_LIFETIME_MS), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const url = `http://127.0.0.1:${port}`;
  child.stdout?.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000)));
  // Ready when it answers HTTP at all (any status).
  const deadline = Date.now() + 110_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism (${mode}) exited with ${child.exitCode} before listening:\n${output.slice(-2000)}`);
    if (Date.now() > deadline) {
      child.stdin?.end();
      throw new Error(`prism (${mode}) did not start within 110 s:\n${output.slice(-2000)}`);
    }
    try {
      const res = await request(`${url}/`, { method: 'GET', dispatcher: toPrism, reset: true });
      await res.body.dump();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return { child, url, output: () => output };
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes.toString('utf8');
  }
}

/**
 * Prism's refusal of a request, if it refused it: either an answer of its own (problem+json: no such path, a
 * method the path lacks, no credentials), or a request that broke the document's rules, listed in its
 * `sl-violations` header (with --errors it then answers with the operation's documented 4xx).
 */
function refusalOf(status: number, answerHeaders: Record<string, string>, answer: unknown): { refusal?: PrismRefusal; answerViolations?: string[] } {
  if (status < 400) return {};
  type Violation = { location?: string[]; severity?: string; message?: string };
  let violations: Violation[] = [];
  try {
    violations = JSON.parse(answerHeaders['sl-violations'] ?? '[]') as Violation[];
  } catch {
    violations = [{ location: ['request'], severity: 'Error', message: `unreadable sl-violations header: ${answerHeaders['sl-violations']}` }];
  }
  const a = (answer && typeof answer === 'object' ? answer : {}) as { type?: string; title?: string; detail?: string; validation?: Violation[] };
  const own = (answerHeaders['content-type'] ?? '').includes('problem+json') && Boolean(a.type?.startsWith(PRISM_ERRORS));
  const all = [...violations, ...(own ? (a.validation ?? []) : [])].filter((v) => v.severity === undefined || v.severity === 'Error');
  const onRequest = all.filter((v) => v.location?.[0] === 'request');
  const onAnswer = all.filter((v) => v.location?.[0] === 'response');
  const line = (v: Violation) => ({ location: (v.location ?? []).slice(1).join('.'), message: v.message ?? '' });
  // Prism's own refusals without findings: no such path, a method the path lacks, no credentials.
  const refusedOutright = own && !a.type?.endsWith('#VIOLATIONS');
  const out: { refusal?: PrismRefusal; answerViolations?: string[] } = {};
  if (onRequest.length > 0 || refusedOutright) {
    out.refusal = { title: own ? (a.title ?? '') : 'request violates the document', detail: own ? (a.detail ?? '') : '', validation: onRequest.map(line) };
  }
  if (onAnswer.length > 0 && !out.refusal) out.answerViolations = onAnswer.map((v) => `${line(v).location}: ${line(v).message}`);
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts Prism on a normalised copy of the reference, and the recorder in front of it. */
export async function startPrismMock(options: { documentFile: string; mode: PrismMode; seed?: string }): Promise<PrismMock> {
  const prism = await startPrism(options.documentFile, options.mode, options.seed);
  const exchanges: PrismExchange[] = [];
  let tokenRequests = 0;

  const forward = async (ex: Pick<PrismExchange, 'method' | 'path' | 'query' | 'headers' | 'body'>, authorization: string | undefined): Promise<PrismExchange> => {
    const res = await request(`${prism.url}${ex.path}${ex.query ? `?${ex.query}` : ''}`, {
      method: ex.method as 'GET',
      headers: { ...ex.headers, ...(authorization ? { authorization } : {}) },
      body: ex.body.length > 0 ? ex.body : undefined,
      dispatcher: toPrism,
      reset: true,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const answerHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) answerHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    const answer = parseJson(bytes);
    const contentType = ex.headers['content-type'] ?? '';
    const exchange: PrismExchange = {
      ...ex,
      ...(contentType.includes('json') ? { json: parseJson(ex.body) } : {}),
      status: res.statusCode,
      answerHeaders,
      answer,
    };
    Object.assign(exchange, refusalOf(res.statusCode, answerHeaders, answer));
    exchanges.push(exchange);
    return exchange;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname === '/oauth/token') {
      tokenRequests += 1;
      const grant = parseJson(body) as Record<string, unknown> | undefined;
      const ok = req.method === 'POST' && grant?.grant_type === 'client_credentials' && grant.client_id === PRISM_CREDENTIALS.clientId &&
        grant.client_secret === PRISM_CREDENTIALS.clientSecret && grant.audience === PRISM_CREDENTIALS.audience;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { access_token: randomUUID(), expires_in: 3600, token_type: 'Bearer' } : { code: 401, message: 'Unauthorized' }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    const exchange = await forward({ method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), headers, body }, req.headers.authorization);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(exchange.answerHeaders)) if (!['transfer-encoding', 'connection', 'keep-alive', 'content-length'].includes(k)) out[k] = v;
    const payload = exchange.answer === undefined ? '' : typeof exchange.answer === 'string' ? exchange.answer : JSON.stringify(exchange.answer);
    res.writeHead(exchange.status, out);
    res.end(payload);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recorder: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    mode: options.mode,
    baseUrl: base,
    authUrl: base,
    exchanges,
    get tokenRequests() {
      return tokenRequests;
    },
    replay: (ex) => forward(ex, `Bearer ${randomUUID()}`),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const exited = new Promise<void>((resolve) => (prism.child.exitCode !== null ? resolve() : prism.child.once('exit', () => resolve())));
      prism.child.stdin?.end();
      await exited;
    },
  };
}
