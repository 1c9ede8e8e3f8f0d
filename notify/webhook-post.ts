// Sends one notification to an incoming-webhook URL with undici: bounded timeouts, redirects never followed
// (a 3xx is a failure; the URL is the secret, so it is not sent on to wherever a redirect points), and a
// dedupe header the receiver may use. Errors name the environment variable and the host, never the URL.
import { request, type Dispatcher } from 'undici';

export const DEDUPE_HEADERS = ['idempotency-key', 'x-studyflow-dedupe-key'] as const;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Why a notification was not delivered; `retryable` says whether another attempt may succeed. */
export class NotificationDeliveryError extends Error {
  override readonly name = 'NotificationDeliveryError';
  constructor(
    message: string,
    readonly reason: 'bad_url' | 'redirect' | 'rejected' | 'server_error' | 'rate_limited' | 'timeout' | 'network',
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The URL to send to: https anywhere, plain http only to this machine (a local receiver). `envName` names it in errors. */
export function notificationUrl(text: string, envName: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NotificationDeliveryError(`${envName} does not hold a URL`, 'bad_url', false);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return url;
  throw new NotificationDeliveryError(
    `${envName} must hold an https:// URL (plain http only to 127.0.0.1 or localhost), not a ${url.protocol.replace(':', '')} URL to ${url.hostname}`,
    'bad_url',
    false,
  );
}

export interface PostOptions {
  url: URL;
  /** Names the URL in errors (the URL itself is a secret). */
  envName: string;
  body: unknown;
  dedupeKey: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
}

/** Posts the JSON; resolves with the status on 2xx, throws NotificationDeliveryError otherwise. */
export async function postNotification(options: PostOptions): Promise<{ status: number }> {
  const timeout = options.timeoutMs ?? 10_000;
  const where = `the webhook in ${options.envName} (${options.url.host})`;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'studyflow',
        ...Object.fromEntries(DEDUPE_HEADERS.map((h) => [h, options.dedupeKey])),
      },
      body: JSON.stringify(options.body),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: options.signal,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    const code = (error as { code?: string }).code ?? 'unknown';
    const timedOut = /TIMEOUT/.test(code);
    throw new NotificationDeliveryError(`${where} ${timedOut ? 'did not answer in time' : 'cannot be reached'} (${code})`, timedOut ? 'timeout' : 'network', true);
  }
  // The answer body is small or irrelevant (Slack answers `ok`); it is read to free the connection, and never shown.
  await res.body.text().catch(() => '');
  const status = res.statusCode;
  if (status >= 200 && status < 300) return { status };
  if (status >= 300 && status < 400) {
    throw new NotificationDeliveryError(`${where} answered ${status} (a redirect): not followed; set the URL it points to`, 'redirect', false, status);
  }
  if (status === 429 || status === 408) throw new NotificationDeliveryError(`${where} answered ${status}: later`, 'rate_limited', true, status);
  if (status >= 500) throw new NotificationDeliveryError(`${where} answered ${status}`, 'server_error', true, status);
  throw new NotificationDeliveryError(`${where} refused the notification (${status}); check that the webhook still exists`, 'rejected', false, status);
}
