// Fault injection (DESIGN.md › Sandbox admin surface): POST /_sandbox/faults.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { DEFAULT_FAULTS } from '../../sandbox/index';
import { P } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });

const setFaults = (body: unknown) => api.admin('POST', '/faults', body);

describe('Faults › configuration', () => {
  it('accepts any subset of the faults and {} restores the defaults', async () => {
    const res = await setFaults({ error_rate: 0.25, latency_ms: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ error_rate: 0.25, latency_ms: 5, job_duration_ms: 200 });
    expect((await setFaults({})).body).toEqual({ ...DEFAULT_FAULTS });
    expect(sb.faults()).toEqual({ ...DEFAULT_FAULTS });
  });

  it.each([
    [{ error_rate: 1.5 }, 'error_rate'],
    [{ rate_limit_rate: -0.1 }, 'rate_limit_rate'],
    [{ latency_ms: 'slow' }, 'latency_ms'],
    [{ job_duration_ms: 1.5 }, 'job_duration_ms'],
    [{ token_ttl_seconds: 0 }, 'token_ttl_seconds'],
    [{ chaos: 1 }, 'chaos'],
  ])('rejects %j with 400 naming the fault', async (body, name) => {
    const res = await setFaults(body);
    expect(res.status).toBe(400);
    expect(res.body.invalid_params.map((p: { name: string }) => p.name)).toEqual([name]);
    expect(sb.faults()).toEqual({ ...DEFAULT_FAULTS });
  });

  it('POST /_sandbox/reset restores the default faults', async () => {
    await setFaults({ error_rate: 1 });
    expect((await api.admin('POST', '/reset')).status).toBe(204);
    expect(sb.faults().error_rate).toBe(0);
  });
});

describe('Faults › effects', () => {
  it('error_rate 1 gives 503 with the error body and no state change', async () => {
    await api.token();
    await setFaults({ error_rate: 1 });
    const before = await api.state();
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'X', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } });
    expect(res.status).toBe(503);
    expect(res.body.object).toBe('service_unavailable');
    expect(typeof res.body.id).toBe('string');
    expect(await api.state()).toEqual(before);
  });

  it('rate_limit_rate 1 gives 429 with Retry-After = retry_after_seconds', async () => {
    await api.token();
    await setFaults({ rate_limit_rate: 1, retry_after_seconds: 7 });
    const res = await api.req('GET', `${P()}/projects`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body.object).toBe('rate_limited');
  });

  it('applies to token calls too, never to /_sandbox', async () => {
    await setFaults({ error_rate: 1 });
    expect((await api.requestToken()).status).toBe(503);
    expect((await api.admin('GET', '/info')).status).toBe(200);
    expect((await api.admin('GET', '/state')).status).toBe(200);
  });

  it('latency_ms delays every /v1 call', async () => {
    await api.token();
    await setFaults({ latency_ms: 150 });
    const started = Date.now();
    expect((await api.req('GET', `${P()}/projects`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('drop_after_commit_rate 1 commits the write, then destroys the socket without a response', async () => {
    await api.token();
    await setFaults({ drop_after_commit_rate: 1 });
    await expect(api.req('POST', `${P()}/projects`, { headers: { 'idempotency-key': 'drop' }, body: { name: 'Dropped', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } })).rejects.toThrow();
    const state = await api.state();
    expect(state.counts.projects).toBe(1);
    const log = (await api.admin('GET', '/requests')).body.data;
    expect(log.find((e: { path: string; method: string }) => e.method === 'POST' && e.path === `${P()}/projects`)).toMatchObject({ status: 202, dropped: true });
    expect((await api.req('GET', `${P()}/projects`)).status).toBe(200);
  });

  it('is reproducible with a seed: the same seed gives the same sequence of outcomes', async () => {
    await api.token();
    const run = async () => {
      await setFaults({ error_rate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await api.req('GET', `${P()}/projects`)).status);
      return statuses;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(new Set(a)).toEqual(new Set([200, 503]));
    await setFaults({ error_rate: 0.5, seed: 7 });
    const c: number[] = [];
    for (let i = 0; i < 24; i++) c.push((await api.req('GET', `${P()}/projects`)).status);
    expect(c).not.toEqual(a);
  });
});
