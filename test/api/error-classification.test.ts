// Every error class of the Demand API, through the real client against undici MockAgent.
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiFailureType, apiFailureDetails, parseRetryAfter } from '../../api/http/errors';
import { apiError, CLIENT_SECRET, createMockApi, rejectionOf, type MockApi } from '../activities/helpers/mock-api';

const PATH = '/v1/demand/accounts/1001/projects';
let mock: MockApi;
const opened: MockApi[] = [];

async function failureFor(status: number, body: unknown, headers: Record<string, string> = {}, clock?: () => number): Promise<ApplicationFailure> {
  mock = createMockApi(clock ? { clock } : {});
  opened.push(mock);
  mock.serveTokens();
  mock.on('GET', PATH, () => ({ status, body, headers }));
  const error = await rejectionOf(mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' }));
  expect(error).toBeInstanceOf(ApplicationFailure);
  // Never a subclass: Temporal serializes ApplicationFailure itself.
  expect(Object.getPrototypeOf(error)).toBe(ApplicationFailure.prototype);
  return error as ApplicationFailure;
}

afterEach(async () => {
  if (mock && !opened.includes(mock)) opened.push(mock);
  await Promise.all(opened.splice(0).map((m) => m.agent.close()));
  mock = undefined as unknown as MockApi;
});

describe('error classification', () => {
  it('429 is retryable and honours Retry-After seconds via nextRetryDelay', async () => {
    const f = await failureFor(429, apiError('rate_limited'), { 'retry-after': '7' });
    expect(f.type).toBe(ApiFailureType.rateLimited);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(7000);
    expect(apiFailureDetails(f)).toMatchObject({ status: 429, retry_after_ms: 7000 });
  });

  it('429 with an HTTP-date Retry-After waits until that date', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const f = await failureFor(429, apiError('rate_limited'), { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, () => now);
    expect(f.nextRetryDelay).toBe(30_000);
  });

  it('429 without Retry-After is retryable and leaves the delay to the retry policy', async () => {
    const f = await failureFor(429, apiError('rate_limited'));
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBeUndefined();
  });

  it.each([500, 502, 503, 504])('%i is a retryable server_error carrying the API object', async (status) => {
    const f = await failureFor(status, apiError('internal_server_error', 'boom'));
    expect(f.type).toBe(ApiFailureType.serverError);
    expect(f.nonRetryable).toBe(false);
    expect(apiFailureDetails(f)).toMatchObject({ status, object: 'internal_server_error', detail: 'boom' });
  });

  it('a 502 with an HTML body from a proxy is still a retryable server_error', async () => {
    const f = await failureFor(502, '<html>bad gateway</html>', { 'content-type': 'text/html' });
    expect(f.type).toBe(ApiFailureType.serverError);
    expect(apiFailureDetails(f)?.detail).toContain('bad gateway');
  });

  it('401 {code, message} is non-retryable unauthorized', async () => {
    const f = await failureFor(401, { code: 401, message: 'unauthorized' });
    expect(f.type).toBe(ApiFailureType.unauthorized);
    expect(f.nonRetryable).toBe(true);
    expect(apiFailureDetails(f)).toMatchObject({ status: 401, object: 'unauthorized' });
  });

  it('401 {object: unauthorized} (intelligent calendar) is non-retryable unauthorized', async () => {
    const f = await failureFor(401, apiError('unauthorized'));
    expect(f.type).toBe('unauthorized');
    expect(f.nonRetryable).toBe(true);
  });

  it.each([
    [400, 'bad_request'],
    [404, 'not_found'],
    [422, 'live_url_required'],
    [422, 'idempotency_key_reused'],
  ])('%i %s is non-retryable with type = the API object, details carry status/object/detail/invalid_params', async (status, object) => {
    const params = [{ name: 'expected_incidence_rate', reason: 'must be greater than 0' }];
    const f = await failureFor(status, apiError(object, 'explained', params));
    expect(f.type).toBe(object);
    expect(f.nonRetryable).toBe(true);
    expect(apiFailureDetails(f)).toMatchObject({ status, object, detail: 'explained', invalid_params: params, method: 'GET', path: PATH });
    expect(f.message).toContain('expected_incidence_rate: must be greater than 0');
  });

  it('a 4xx without a JSON body falls back to a type named after the status', async () => {
    const f = await failureFor(404, '');
    expect(f.type).toBe('not_found');
    expect(f.nonRetryable).toBe(true);
  });

  it('403 other than authorization_error (missing version header) is non-retryable with its object', async () => {
    const f = await failureFor(403, apiError('required_header_missing'));
    expect(f.type).toBe('required_header_missing');
    expect(f.nonRetryable).toBe(true);
  });

  it('409 job_already_running is retryable after a wait (Retry-After when given)', async () => {
    const f = await failureFor(409, apiError('job_already_running'));
    expect(f.type).toBe(ApiFailureType.jobAlreadyRunning);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(10_000);
    const g = await failureFor(409, apiError('job_already_running'), { 'retry-after': '3' });
    expect(g.nextRetryDelay).toBe(3000);
  });

  it('409 job_already_running uses the configured wait', async () => {
    mock = createMockApi({ jobBusyRetryDelayMs: 1234 });
    mock.serveTokens();
    mock.on('GET', PATH, () => ({ status: 409, body: apiError('job_already_running') }));
    const f = await rejectionOf(mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' }));
    expect(f.nextRetryDelay).toBe(1234);
  });

  it('409 conflict_error on a call that starts a job is job_already_running, retryable after a wait', async () => {
    mock = createMockApi({ jobBusyRetryDelayMs: 1234 });
    mock.serveTokens();
    mock.on('POST', PATH, () => ({ status: 409, body: apiError('conflict_error') }), 2);
    const f = await rejectionOf(mock.client.request({ method: 'POST', path: PATH, apiVersion: '2025-12-18', startsJob: true }));
    expect(f).toMatchObject({ type: ApiFailureType.jobAlreadyRunning, nonRetryable: false, nextRetryDelay: 1234 });
    // The same answer to a call that starts no job (e.g. deleting an exclusion group in use) is final.
    const g = await rejectionOf(mock.client.request({ method: 'POST', path: PATH, apiVersion: '2025-12-18' }));
    expect(g).toMatchObject({ type: 'conflict_error', nonRetryable: true });
  });

  it('the reference\'s invalid_state_error (422) and precondition_failed_error (412) are named, non-retryable failures', async () => {
    expect(await failureFor(422, apiError('invalid_state_error'))).toMatchObject({ type: 'invalid_state_error', nonRetryable: true });
    expect(await failureFor(412, apiError('precondition_failed_error'))).toMatchObject({ type: ApiFailureType.preconditionFailed, nonRetryable: true });
  });

  it('another 409 is a non-retryable conflict', async () => {
    const f = await failureFor(409, apiError('target_group_not_draft'));
    expect(f.type).toBe('target_group_not_draft');
    expect(f.nonRetryable).toBe(true);
  });

  it('412 is the distinct non-retryable precondition_failed the caller handles', async () => {
    const f = await failureFor(412, apiError('precondition_failed'));
    expect(f.type).toBe(ApiFailureType.preconditionFailed);
    expect(f.nonRetryable).toBe(true);
  });

  it('a network error (connection refused/reset) is a retryable network_error', async () => {
    mock = createMockApi();
    mock.serveTokens();
    mock.api.intercept({ path: PATH, method: 'GET' }).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const f = await rejectionOf(mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' }));
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f.type).toBe(ApiFailureType.networkError);
    expect(f.nonRetryable).toBe(false);
    expect(apiFailureDetails(f)).toMatchObject({ code: 'ECONNRESET', method: 'GET', path: PATH });
  });

  it('a headers timeout is a retryable request_timeout', async () => {
    mock = createMockApi();
    mock.serveTokens();
    mock.api.intercept({ path: PATH, method: 'GET' }).replyWithError(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }));
    const f = await rejectionOf(mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' }));
    expect(f.type).toBe(ApiFailureType.requestTimeout);
    expect(f.nonRetryable).toBe(false);
  });

  it('messages and details never contain the bearer token or the client secret', async () => {
    const leaky = apiError('bad_request', `token token-1-abcdef rejected; secret ${CLIENT_SECRET}; Bearer abc.def.ghi`, [
      { name: 'x', reason: `contains ${CLIENT_SECRET}` },
    ]);
    const f = await failureFor(400, leaky);
    const everything = JSON.stringify({ message: f.message, details: f.details });
    expect(everything).not.toContain('token-1-abcdef');
    expect(everything).not.toContain(CLIENT_SECRET);
    expect(everything).not.toContain('abc.def.ghi');
    expect(everything).toContain('[redacted]');
  });

  it('a bad token endpoint answer (wrong credentials) fails every call with unauthorized, secret-free', async () => {
    mock = createMockApi();
    mock.auth.intercept({ path: '/auth/oauth/token', method: 'POST' }).reply(401, { code: 401, message: 'unauthorized' });
    const f = await rejectionOf(mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' }));
    expect(f.type).toBe('unauthorized');
    expect(f.nonRetryable).toBe(true);
    expect(JSON.stringify({ m: f.message, d: f.details })).not.toContain(CLIENT_SECRET);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds, fractional seconds and HTTP dates; ignores garbage', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', () => Date.parse('2015-10-21T07:28:00Z'))).toBe(10_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', () => Date.parse('2015-10-21T07:29:00Z'))).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
