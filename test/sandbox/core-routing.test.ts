// Unit tests of the sandbox core: route table, token service, PRNG, faults, pagination.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../sandbox/core/api-error';
import { DEFAULT_FAULTS, parseFaults } from '../../sandbox/core/faults';
import { encodeCursor, paginate, paginateArray, parsePageRequest } from '../../sandbox/core/pagination';
import { createPrng } from '../../sandbox/core/prng';
import type { RouteDefinition } from '../../sandbox/core/route-module';
import { RouteTable } from '../../sandbox/core/route-table';
import { issueToken, verifyBearer } from '../../sandbox/core/token-service';
import { assertWriteVersionAllowed, pinWriteVersion, type VersionPinned } from '../../sandbox/core/versioning';

const route = (method: RouteDefinition['method'], path: string): RouteDefinition => ({ method, path, handler: () => ({ status: 200 }) });

describe('core › route table', () => {
  const table = new RouteTable();
  table.add(route('GET', '/v1/a/{id}'));
  table.add(route('GET', '/v1/a/special'));
  table.add(route('POST', '/v1/a/{id}/run'));

  it('captures and decodes parameters', () => {
    const m = table.match('GET', '/v1/a/x%20y');
    expect(m).toMatchObject({ kind: 'matched', params: { id: 'x y' } });
  });

  it('prefers literal segments over parameters', () => {
    const m = table.match('GET', '/v1/a/special');
    expect(m.kind === 'matched' && m.route.path).toBe('/v1/a/special');
  });

  it('reports 405 with the allowed methods and 404 for unknown or empty segments', () => {
    expect(table.match('DELETE', '/v1/a/1')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
    expect(table.match('GET', '/v1/a/').kind).toBe('not_found');
    expect(table.match('GET', '/v1/a/%E0%A4%A').kind).toBe('not_found');
    expect(table.match('GET', '/v1/b/1').kind).toBe('not_found');
  });

  it('refuses the same method and template twice', () => {
    expect(() => table.add(route('GET', '/v1/a/{id}'))).toThrow(/registered twice/);
  });
});

describe('core › token service', () => {
  const key = 'k'.repeat(64);
  const aud = 'https://aud';
  const token = issueToken(key, { sub: 'c', aud, scope: 'app:api', iat: 0, exp: 100 });

  it('verifies a token before exp and answers 403 authorization_error from exp on', () => {
    expect(verifyBearer(`Bearer ${token}`, key, aud, 99_999).sub).toBe('c');
    const err = (() => {
      try {
        verifyBearer(`Bearer ${token}`, key, aud, 100_000);
      } catch (e) {
        return e as ApiError;
      }
    })();
    expect(err?.status).toBe(403);
    expect(err?.object).toBe('authorization_error');
  });

  it('rejects another key, another audience and a tampered payload with 401', () => {
    for (const [header, k, a] of [
      [`Bearer ${token}`, 'other', aud],
      [`Bearer ${token}`, key, 'https://other'],
      [`Bearer ${token.split('.')[0]}.${Buffer.from('{"exp":9e12,"aud":"https://aud"}').toString('base64url')}.${token.split('.')[2]}`, key, aud],
    ] as const) {
      expect(() => verifyBearer(header, k, a, 0)).toThrow(expect.objectContaining({ status: 401 }));
    }
  });
});

describe('core › seeded PRNG', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const a = createPrng(5);
    const b = createPrng(5);
    const c = createPrng(6);
    const seqA = Array.from({ length: 10 }, () => a.next());
    expect(Array.from({ length: 10 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 10 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('never draws for rate 0 and always fires for rate 1', () => {
    const p = createPrng(1);
    expect(Array.from({ length: 50 }, () => p.chance(0)).some(Boolean)).toBe(false);
    expect(Array.from({ length: 50 }, () => p.chance(1)).every(Boolean)).toBe(true);
  });
});

describe('core › faults', () => {
  it('overlays a partial body on the defaults', () => {
    expect(parseFaults({ error_rate: 0.5 })).toEqual({ ...DEFAULT_FAULTS, error_rate: 0.5 });
    expect(parseFaults({})).toEqual(DEFAULT_FAULTS);
    expect(DEFAULT_FAULTS.job_duration_ms).toBe(200);
    expect(DEFAULT_FAULTS.token_ttl_seconds).toBe(86_400);
  });

  it('rejects non-objects, out-of-range values and unknown names', () => {
    expect(() => parseFaults([])).toThrow(ApiError);
    expect(() => parseFaults({ drop_after_commit_rate: 2 })).toThrow(ApiError);
    expect(() => parseFaults({ nope: 1 })).toThrow(ApiError);
  });
});

describe('core › pagination', () => {
  const items = [1, 2, 3, 4, 5].map((seq) => ({ seq, name: `n${seq}` }));

  it('pages by sequence with a cursor that survives deletions', () => {
    const first = paginate(items, { pageSize: 2, afterSeq: 0 }, (i) => i.name);
    expect(first).toEqual({ data: ['n1', 'n2'], has_more: true, next_cursor: encodeCursor(2) });
    const remaining = items.filter((i) => i.seq !== 3);
    const next = paginate(remaining, parsePageRequest(new URLSearchParams({ start_after: first.next_cursor!, page_size: '2' }), { max: 100, default: 20 }), (i) => i.name);
    expect(next).toEqual({ data: ['n4', 'n5'], has_more: false, next_cursor: null });
  });

  it('pages arrays by position', () => {
    expect(paginateArray(['a', 'b', 'c'], { pageSize: 2, afterSeq: 0 })).toEqual({ data: ['a', 'b'], has_more: true, next_cursor: encodeCursor(2) });
    expect(paginateArray(['a', 'b', 'c'], { pageSize: 2, afterSeq: 2 })).toEqual({ data: ['c'], has_more: false, next_cursor: null });
  });
});

describe('core › forward-only version pin', () => {
  it('pins only on 2025-12-18 and then refuses older writes', () => {
    const r: VersionPinned = { pinned_version: null };
    pinWriteVersion(r, '2025-05-27');
    expect(r.pinned_version).toBeNull();
    expect(() => assertWriteVersionAllowed(r, '2025-02-17', 'x')).not.toThrow();
    pinWriteVersion(r, '2025-12-18');
    expect(() => assertWriteVersionAllowed(r, '2025-05-27', 'x')).toThrow(expect.objectContaining({ status: 400, object: 'version_downgrade_not_allowed' }));
    expect(() => assertWriteVersionAllowed(r, '2025-12-18', 'x')).not.toThrow();
  });
});
