// OAuth client-credentials token: one per process, cached until shortly before expiry, refreshed single-flight.
import type { Dispatcher } from 'undici';
import type { ApiConfig } from './api-config';
import { failureFromAnswer, unexpectedResponseFailure } from './errors';
import { exchange } from './http-exchange';

/** Options of {@link AccessTokenProvider}. */
export interface AccessTokenProviderOptions {
  config: ApiConfig;
  dispatcher: Dispatcher;
  /** Current time in ms; injectable for tests. Default `Date.now`. */
  clock?: () => number;
  /** Renew this long before expiry. Default 5 minutes (capped at half the token lifetime). */
  refreshMarginMs?: number;
  userAgent?: string;
}

interface CachedToken {
  value: string;
  /** Renew at or after this instant. */
  renewAt: number;
  expiresAt: number;
}

export const DEFAULT_TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

/**
 * Hands out the bearer token. Concurrent callers share one token request; a token is reused until
 * `refreshMarginMs` before it expires; a token the API rejected is replaced once, by whoever notices first.
 */
export class AccessTokenProvider {
  private readonly config: ApiConfig;
  private readonly dispatcher: Dispatcher;
  private readonly clock: () => number;
  private readonly refreshMarginMs: number;
  private readonly userAgent: string;
  private current: CachedToken | undefined;
  private pending: Promise<CachedToken> | undefined;
  private requests = 0;

  constructor(options: AccessTokenProviderOptions) {
    this.config = options.config;
    this.dispatcher = options.dispatcher;
    this.clock = options.clock ?? Date.now;
    this.refreshMarginMs = options.refreshMarginMs ?? DEFAULT_TOKEN_REFRESH_MARGIN_MS;
    this.userAgent = options.userAgent ?? 'studyflow';
  }

  /** Number of token requests this provider has sent (for diagnostics and tests). */
  get tokenRequestCount(): number {
    return this.requests;
  }

  /** The token currently held, for scrubbing it out of messages. */
  currentSecrets(): string[] {
    return this.current ? [this.current.value] : [];
  }

  /** A valid token: the cached one, or a fresh one shared with every concurrent caller. */
  async getToken(): Promise<string> {
    const cached = this.current;
    if (cached && this.clock() < cached.renewAt) return cached.value;
    return (await this.refresh()).value;
  }

  /**
   * Called when the API answered 403 authorization_error to `rejected`. Fetches a new token unless another
   * caller already replaced it, and returns the token to replay with.
   */
  async replaceRejected(rejected: string): Promise<string> {
    if (this.current && this.current.value !== rejected && this.clock() < this.current.renewAt) return this.current.value;
    if (this.current?.value === rejected) this.current = undefined;
    return (await this.refresh()).value;
  }

  /** Forgets the cached token (e.g. after a credentials change). */
  clear(): void {
    this.current = undefined;
  }

  private refresh(): Promise<CachedToken> {
    if (!this.pending) {
      this.pending = this.requestToken().then(
        (token) => {
          this.current = token;
          this.pending = undefined;
          return token;
        },
        (error: unknown) => {
          this.pending = undefined;
          throw error;
        },
      );
    }
    return this.pending;
  }

  private async requestToken(): Promise<CachedToken> {
    const { config } = this;
    const url = new URL(`${config.authUrl}/oauth/token`);
    const call = { method: 'POST', path: url.pathname };
    const sentAt = this.clock();
    this.requests += 1;
    const answer = await exchange({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': this.userAgent },
      body: JSON.stringify({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        grant_type: 'client_credentials',
        auth_scopes: 'app:api',
        audience: config.audience,
      }),
      headersTimeoutMs: config.timeouts.headersMs,
      bodyTimeoutMs: config.timeouts.bodyMs,
      dispatcher: this.dispatcher,
      secrets: [config.clientSecret],
      displayPath: url.pathname,
    });
    if (answer.status !== 200 && answer.status !== 201) {
      throw failureFromAnswer(answer, call, { secrets: [config.clientSecret] });
    }
    const body = answer.body as Record<string, unknown> | undefined;
    const value = body?.access_token;
    const expiresIn = body?.expires_in;
    if (typeof value !== 'string' || value === '') throw unexpectedResponseFailure(call, answer.status, 'no access_token');
    if (typeof expiresIn !== 'number' || !(expiresIn > 0)) throw unexpectedResponseFailure(call, answer.status, 'no positive expires_in');
    if (typeof body?.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
      throw unexpectedResponseFailure(call, answer.status, `token_type ${body.token_type} is not Bearer`);
    }
    const lifetimeMs = expiresIn * 1000;
    // Counted from when the request was sent, so the cached expiry is never later than the real one.
    const expiresAt = sentAt + lifetimeMs;
    const margin = Math.min(this.refreshMarginMs, lifetimeMs / 2);
    return { value, expiresAt, renewAt: expiresAt - margin };
  }
}
