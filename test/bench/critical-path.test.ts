import { describe, expect, it } from 'vitest';
import {
  apiCalls,
  apiWrites,
  criticalPathBoundMs,
  dependentChain,
  entriesBetween,
  entriesOfProject,
  isWrite,
  stepLabel,
  tokenRequests,
  type LoggedCall,
} from '../../bench/critical-path';
import type { RequestLogEntry } from '../../sandbox';

const A = '/v1/demand/accounts/{account_id}';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function entry(method: string, path: string, route: string | null, startMs: number, durationMs: number): RequestLogEntry {
  return {
    method,
    path,
    route,
    status: 200,
    api_version: '2025-12-18',
    idempotency_key_present: method === 'POST',
    dropped: false,
    time: new Date(T0 + startMs).toISOString(),
    duration_ms: durationMs,
  };
}

function call(method: string, route: string, startMs: number, endMs: number): LoggedCall {
  return { method, route, status: 200, startMs, endMs };
}

const JOB = `${A}/projects/{project_id}/target-groups/{target_group_id}/fielding-run-jobs/launch-from-draft/{job_id}`;

describe('dependentChain', () => {
  it('is every call of a strictly sequential run, with the polls of one job collapsed into the last', () => {
    const calls = [
      call('GET', `${A}/projects`, 0, 51),
      call('POST', `${A}/projects`, 60, 111),
      call('POST', `${A}/projects/{project_id}/target-groups/{target_group_id}/fielding-run-jobs/launch-from-draft`, 150, 201),
      call('GET', JOB, 210, 261),
      call('GET', JOB, 400, 451),
      call('GET', JOB, 700, 751),
    ];
    const chain = dependentChain(calls);
    expect(chain.map((s) => s.method)).toEqual(['GET', 'POST', 'POST', 'GET']);
    expect(chain[3]).toEqual({ method: 'GET', route: JOB, polls: 3 });
    expect(stepLabel(chain[3])).toBe('GET …/projects/{project_id}/target-groups/{target_group_id}/fielding-run-jobs/launch-from-draft/{job_id} (last of 3 polls)');
  });

  it('leaves out calls that overlapped the chain: they ran in parallel, not on it', () => {
    const calls = [
      call('POST', `${A}/projects`, 0, 50),
      call('POST', `${A}/projects/{project_id}/target-groups`, 55, 105),
      call('POST', `${A}/projects/{project_id}/target-groups`, 56, 106),
      call('POST', `${A}/projects/{project_id}/target-groups`, 57, 108),
      call('POST', `${A}/target-groups/calculate-feasibility`, 110, 160),
    ];
    expect(dependentChain(calls)).toHaveLength(3);
  });

  it('takes the longest of two independent sequences', () => {
    const calls = [call('GET', '/a', 0, 100), call('GET', '/b', 0, 10), call('GET', '/c', 20, 30), call('GET', '/d', 40, 50), call('GET', '/e', 110, 120)];
    expect(dependentChain(calls).map((s) => s.route)).toEqual(['/b', '/c', '/d', '/e']);
  });

  it('absorbs the log\'s millisecond rounding but not a real overlap', () => {
    expect(dependentChain([call('GET', '/a', 0, 51), call('GET', '/b', 50, 100)])).toHaveLength(2);
    expect(dependentChain([call('GET', '/a', 0, 51), call('GET', '/b', 40, 100)])).toHaveLength(1);
  });
});

describe('criticalPathBoundMs', () => {
  const chain = [
    { method: 'POST', route: '/project' },
    { method: 'POST', route: '/launch' },
    { method: 'GET', route: '/launch/{job_id}', polls: 4 },
  ];

  it('counts every step at the latency and adds what a job takes beyond it', () => {
    expect(criticalPathBoundMs(chain, 50, 500)).toBe(3 * 50 + 450);
  });

  it('adds nothing for a job shorter than the latency (the poll cannot come before the launch answers)', () => {
    expect(criticalPathBoundMs(chain, 50, 20)).toBe(150);
  });

  it('is the latency times the calls when no job is on the chain', () => {
    expect(criticalPathBoundMs(chain.slice(0, 2), 50, 500)).toBe(100);
  });
});

describe('reading the request log', () => {
  const log = [
    entry('POST', '/auth/oauth/token', '/auth/oauth/token', 0, 50),
    entry('GET', '/v1/demand/accounts/1001/projects', `${A}/projects`, 60, 51),
    entry('POST', '/v1/demand/accounts/1001/projects', `${A}/projects`, 120, 52),
    entry('POST', '/v1/demand/accounts/1001/target-groups/calculate-feasibility', `${A}/target-groups/calculate-feasibility`, 180, 51),
    entry('PATCH', '/v1/demand/accounts/1001/projects/p1', `${A}/projects/{project_id}`, 240, 51),
    entry('GET', '/_sandbox/state', '/_sandbox/state', 300, 1),
  ];

  it('keeps only /v1 calls, on a ms timeline', () => {
    const calls = apiCalls(log);
    expect(calls).toHaveLength(4);
    expect(calls[0]).toEqual({ method: 'GET', route: `${A}/projects`, status: 200, startMs: T0 + 60, endMs: T0 + 111 });
  });

  it('counts token requests and writes, a feasibility POST not being a write', () => {
    expect(tokenRequests(log)).toBe(1);
    expect(apiWrites(log)).toBe(2);
    expect(isWrite({ method: 'POST', route: `${A}/target-groups/calculate-feasibility` })).toBe(false);
    expect(isWrite({ method: 'POST', route: `${A}/projects/{project_id}/drafts/generate-blended-profile` })).toBe(false);
    expect(isWrite({ method: 'DELETE', route: `${A}/projects/{project_id}` })).toBe(true);
    expect(isWrite({ method: 'GET', route: `${A}/projects` })).toBe(false);
  });

  it('keeps the calls of one project and the calls under no project', () => {
    const mixed = [
      ...log,
      entry('GET', '/v1/demand/accounts/1001/projects/p2/target-groups/t9/performance', `${A}/projects/{project_id}/target-groups/{target_group_id}/performance`, 400, 51),
      entry('GET', '/v1/demand/accounts/1001/projects/p1/target-groups/t1', `${A}/projects/{project_id}/target-groups/{target_group_id}`, 500, 51),
    ];
    expect(entriesOfProject(mixed, 'p1').map((e) => e.path)).toEqual([...log.map((e) => e.path), '/v1/demand/accounts/1001/projects/p1/target-groups/t1']);
  });

  it('selects the entries that started in a window', () => {
    expect(entriesBetween(log, T0 + 60, T0 + 180).map((e) => e.method)).toEqual(['GET', 'POST']);
    expect(entriesBetween(log, T0 + 240)).toHaveLength(2);
  });
});
