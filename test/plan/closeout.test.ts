// The close-out's pure decisions (plan/closeout.ts): the reconciliation window, the classification of the file's
// RIDs, the plan (counts, money, days left, blocks, chunked steps by name) and the derived idempotency keys.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  approvedCompletesName,
  classifyReversals,
  closeoutSummary,
  countReversals,
  CloseoutInputError,
  daysLeft,
  isToSubmit,
  nextCloseoutWarning,
  planCloseout,
  reversalRowState,
  reversalRows,
  reconciliationWindowClosesAt,
  reversalChunks,
  type EligibleComplete,
} from '../../plan/closeout';
import type { DesiredCloseout, ObservedCloseout, ReversalClassification } from '../../plan/closeout-types';
import { sha256Hex, uuidFromName } from '../../shared/sha256';

const rid = (i: number) => `9c23131d-388b-4e03-97b3-${String(i).padStart(12, '0')}`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DAY = 86_400_000;

describe('reconciliationWindowClosesAt', () => {
  it('closes at the 26th of the next month, 00:00Z: reversible until the end of the 25th', () => {
    expect(reconciliationWindowClosesAt('2027-03-01T00:00:00Z')).toBe('2027-04-26T00:00:00.000Z');
    expect(reconciliationWindowClosesAt('2027-03-31T23:59:59.999Z')).toBe('2027-04-26T00:00:00.000Z');
  });

  it('December completes close in January of the next year', () => {
    expect(reconciliationWindowClosesAt('2026-12-31T23:59:59Z')).toBe('2027-01-26T00:00:00.000Z');
    expect(reconciliationWindowClosesAt('2026-12-01T00:00:00Z')).toBe('2027-01-26T00:00:00.000Z');
  });

  it('takes the month in UTC, whatever the offset the time is written with', () => {
    // 2027-01-31T20:00-05:00 is February 1st in UTC.
    expect(reconciliationWindowClosesAt('2027-01-31T20:00:00-05:00')).toBe('2027-03-26T00:00:00.000Z');
  });

  it('leap years: a complete of February 29th closes on March 26th; January completes close in a 29-day February', () => {
    expect(reconciliationWindowClosesAt('2028-02-29T12:00:00Z')).toBe('2028-03-26T00:00:00.000Z');
    expect(reconciliationWindowClosesAt('2028-01-31T12:00:00Z')).toBe('2028-02-26T00:00:00.000Z');
    expect(reconciliationWindowClosesAt('2027-01-31T12:00:00Z')).toBe('2027-02-26T00:00:00.000Z');
  });

  it('refuses a time that is not one, by name', () => {
    expect(() => reconciliationWindowClosesAt('yesterday')).toThrow(CloseoutInputError);
  });
});

describe('daysLeft', () => {
  const closes = '2027-01-26T00:00:00.000Z';
  it('is 0 on the last day (the 25th), 1 the day before, negative once closed', () => {
    expect(daysLeft(closes, '2027-01-25T00:00:00Z')).toBe(0);
    expect(daysLeft(closes, '2027-01-25T23:59:59Z')).toBe(0);
    expect(daysLeft(closes, '2027-01-24T23:59:59Z')).toBe(1);
    expect(daysLeft(closes, '2027-01-26T00:00:00Z')).toBe(-1);
    expect(daysLeft(closes, '2027-01-27T00:00:00Z')).toBe(-2);
    expect(daysLeft(closes, '2026-12-26T00:00:00Z')).toBe(30);
  });
});

describe('classifyReversals', () => {
  const eligible = new Map<string, EligibleComplete>([
    [rid(1), { targetGroupId: 'tg-us', completedAt: '2027-01-10T00:00:00Z' }],
    [rid(2), { targetGroupId: 'tg-us', completedAt: '2027-02-03T00:00:00Z' }],
    [rid(3), { targetGroupId: 'tg-de', completedAt: '2027-01-20T00:00:00Z' }],
    [rid(4), { targetGroupId: 'tg-us', completedAt: '2026-12-20T00:00:00Z' }],
    [rid(5), { targetGroupId: 'tg-de', completedAt: '2027-02-01T00:00:00Z' }],
  ]);

  it('counts to submit, submitted, not eligible and window closed, per target group and code', () => {
    const rows = [
      { rid: rid(1), code: '11' },
      { rid: rid(2).toUpperCase(), code: '932' },
      { rid: rid(3), code: '11' },
      { rid: rid(4), code: '11' }, // a December complete: closed on January 26th
      { rid: rid(5), code: '11' }, // submitted before
      { rid: rid(9), code: '11' }, // not an eligible complete
      { rid: rid(8), code: '11' }, // submitted before, no longer listed (the exchange reversed it)
    ];
    const c = classifyReversals(rows, eligible, new Set([rid(5), rid(8)]), '2027-02-10T00:00:00Z');
    expect(c).toEqual({
      byTargetGroup: {
        'tg-us': { byCode: { '11': { toSubmit: 1, submitted: 0 }, '932': { toSubmit: 1, submitted: 0 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' },
        'tg-de': { byCode: { '11': { toSubmit: 1, submitted: 1 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' },
      },
      notEligible: 1,
      windowClosed: { 'tg-us': 1 },
      windowClosedAt: { 'tg-us': '2027-01-26T00:00:00.000Z' },
      submittedUnlisted: 1,
    } satisfies ReversalClassification);
  });

  it('names each row\'s state; the rows isToSubmit keeps are the delta the classification counts', () => {
    const rows = [1, 2, 3, 4, 5, 8, 9].map((i) => ({ rid: rid(i), code: '11' }));
    const submitted = new Set([rid(5), rid(8)]);
    const now = '2027-02-10T00:00:00Z';
    expect(rows.map((row) => reversalRowState(row, eligible, submitted, now))).toEqual(['to_submit', 'to_submit', 'to_submit', 'window_closed', 'submitted', 'submitted_unlisted', 'not_eligible']);
    const c = classifyReversals(rows, eligible, submitted, now);
    const toSubmit = Object.values(c.byTargetGroup).reduce((sum, g) => sum + Object.values(g.byCode).reduce((s, n) => s + n.toSubmit, 0), 0);
    expect(rows.filter((row) => isToSubmit(row, eligible, submitted, now))).toHaveLength(toSubmit);
  });

  it('a target group\'s window is the earliest among its RIDs to submit', () => {
    const c = classifyReversals([{ rid: rid(2), code: '11' }, { rid: rid(1), code: '11' }], eligible, new Set(), '2027-02-01T00:00:00Z');
    expect(c.byTargetGroup['tg-us'].windowClosesAt).toBe('2027-02-26T00:00:00.000Z');
    const later = classifyReversals([{ rid: rid(2), code: '11' }], eligible, new Set(), '2027-02-01T00:00:00Z');
    expect(later.byTargetGroup['tg-us'].windowClosesAt).toBe('2027-03-26T00:00:00.000Z');
  });

  it('a RID submitted before is never to submit again, even past its window', () => {
    const c = classifyReversals([{ rid: rid(4), code: '11' }], eligible, new Set([rid(4)]), '2027-03-01T00:00:00Z');
    expect(c.byTargetGroup['tg-us'].byCode).toEqual({ '11': { toSubmit: 0, submitted: 1 } });
    expect(c.windowClosed).toEqual({});
  });

  it('takes rows streamed as an async iterable and gives the same counts', async () => {
    const rows = [{ rid: rid(1), code: '11' }, { rid: rid(3), code: '932' }];
    async function* stream() {
      yield* rows;
    }
    const now = '2027-02-01T00:00:00Z';
    expect(await classifyReversals(stream(), eligible, new Set(), now)).toEqual(classifyReversals(rows, eligible, new Set(), now));
  });
});

const USD = (value: string) => ({ value, currency_code: 'USD' });

function observedOf(classification: ReversalClassification, over: Partial<ObservedCloseout> = {}): ObservedCloseout {
  return {
    reasonCodes: [
      { code: '11', description: 'Speeder', allowed: true },
      { code: '932', description: 'Fraud', allowed: true },
      { code: '40', description: 'Old code', allowed: false },
    ],
    classification,
    targetGroups: { 'tg-us': { key: 'us', status: 'completed', cpi: USD('2.35') }, 'tg-de': { key: 'de', status: 'completed' } },
    submissions: [],
    archivedReports: [],
    ...over,
  };
}

const desiredOf = (byCode: Record<string, number>, over: Partial<DesiredCloseout> = {}): DesiredCloseout => ({
  reversals: { ref: `sha256:${'c'.repeat(64)}`, sha256: 'c'.repeat(64), count: Object.values(byCode).reduce((a, b) => a + b, 0), byCode, files: ['closeout/r.csv'] },
  reports: ['completes', 'reconciliations-status'],
  deadlineWarningMs: 3 * DAY,
  ...over,
});

const classification = (over: Partial<ReversalClassification> = {}): ReversalClassification => ({
  byTargetGroup: {
    'tg-us': { byCode: { '11': { toSubmit: 120, submitted: 0 }, '932': { toSubmit: 3, submitted: 2 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' },
    'tg-de': { byCode: { '11': { toSubmit: 7, submitted: 0 } }, windowClosesAt: '2027-03-26T00:00:00.000Z' },
  },
  notEligible: 4,
  windowClosed: {},
  windowClosedAt: {},
  submittedUnlisted: 0,
  ...over,
});

const DELTA = { sha256: sha('delta'), count: 130 };

describe('planCloseout', () => {
  it('counts per target group, the money reversed exactly (completes × CPI), days left and the warning time', () => {
    const plan = planCloseout('acme-q1', desiredOf({ '11': 131, '932': 5 }), observedOf(classification()), '2027-02-20T12:00:00Z', DELTA);
    expect(plan.perTargetGroup).toEqual([
      { targetGroupId: 'tg-de', key: 'de', byCode: { '11': { toSubmit: 7, submitted: 0 } }, windowClosesAt: '2027-03-26T00:00:00.000Z', daysLeft: 33, deadlineWarningAt: '2027-03-23T00:00:00.000Z' },
      {
        targetGroupId: 'tg-us',
        key: 'us',
        byCode: { '11': { toSubmit: 120, submitted: 0 }, '932': { toSubmit: 3, submitted: 2 } },
        reverses: USD('289.05'),
        windowClosesAt: '2027-02-26T00:00:00.000Z',
        daysLeft: 5,
        deadlineWarningAt: '2027-02-23T00:00:00.000Z',
      },
    ]);
    expect(plan.notEligible).toBe(4);
    expect(plan.blocks).toEqual([]);
    expect(plan.needsApproval).toBe(true);
  });

  it('submits the delta in one chunk named by its content hash, with a key derived from the name; reports wait', () => {
    const plan = planCloseout('acme-q1', desiredOf({ '11': 131, '932': 5 }), observedOf(classification()), '2027-02-20T12:00:00Z', DELTA);
    const name = `acme-q1-${DELTA.sha256.slice(0, 12)}-1`;
    expect(plan.steps).toEqual([{ kind: 'submit_reversals', name, idempotencyKey: uuidFromName(name), chunk: 0, rowsPerChunk: 100_000, from: 0, rows: 130 }]);
    expect(plan.reportsWaiting).toEqual(['completes', 'reconciliations-status']);
  });

  it('takes the delta from the observation when it is not passed, and names a missing or disagreeing delta', () => {
    const withDelta = observedOf(classification(), { delta: DELTA });
    expect(planCloseout('acme-q1', desiredOf({ '11': 131, '932': 5 }), withDelta, '2027-02-20T00:00:00Z').steps).toHaveLength(1);
    expect(() => planCloseout('acme-q1', desiredOf({ '11': 131 }), observedOf(classification()), '2027-02-20T00:00:00Z')).toThrow(CloseoutInputError);
    expect(() => planCloseout('acme-q1', desiredOf({ '11': 131 }), observedOf(classification()), '2027-02-20T00:00:00Z', { ...DELTA, count: 129 })).toThrow('the delta holds 129 row(s)');
  });

  it('a chunk already submitted by name is not a step again', () => {
    const name = `acme-q1-${DELTA.sha256.slice(0, 12)}-1`;
    const observed = observedOf(classification(), { submissions: [{ name, requestId: 'r1', status: 'processing', done: false }] });
    const plan = planCloseout('acme-q1', desiredOf({ '11': 131, '932': 5 }), observed, '2027-02-20T00:00:00Z', DELTA);
    expect(plan.steps).toEqual([]);
    expect(plan.needsApproval).toBe(false);
    expect(plan.reportsWaiting).toEqual(['completes', 'reconciliations-status']);
  });

  it('archives the reports not archived yet once everything is submitted and done', () => {
    const done = classification({
      byTargetGroup: { 'tg-us': { byCode: { '11': { toSubmit: 0, submitted: 131 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' } },
    });
    const observed = observedOf(done, { submissions: [{ name: 'acme-q1-abc-1', requestId: 'r1', status: 'completed', done: true }], archivedReports: ['completes'] });
    const plan = planCloseout('acme-q1', desiredOf({ '11': 131 }), observed, '2027-02-20T00:00:00Z');
    expect(plan.steps).toEqual([{ kind: 'archive_report', report: 'reconciliations-status' }]);
    expect(plan.reportsWaiting).toEqual([]);
    expect(plan.needsApproval).toBe(false);
  });

  it('blocks on a code the exchange does not list and one it phased out; nothing is submitted then', () => {
    const c = classification({
      byTargetGroup: { 'tg-us': { byCode: { '11': { toSubmit: 2, submitted: 0 }, '77': { toSubmit: 3, submitted: 0 }, '40': { toSubmit: 1, submitted: 0 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' } },
    });
    const plan = planCloseout('acme-q1', desiredOf({ '11': 2, '40': 1, '77': 4 }), observedOf(c), '2027-02-20T00:00:00Z', { sha256: sha('d'), count: 6 });
    expect(plan.blocks).toEqual([
      { kind: 'reason_code_not_allowed', code: '40', rows: 1 },
      { kind: 'unknown_reason_code', code: '77', rows: 4 },
    ]);
    expect(plan.steps).toEqual([]);
    expect(plan.needsApproval).toBe(false);
  });

  it('a code phased out after all its rows were submitted blocks nothing', () => {
    const c = classification({ byTargetGroup: { 'tg-us': { byCode: { '40': { toSubmit: 0, submitted: 2 } }, windowClosesAt: '2027-02-26T00:00:00.000Z' } } });
    expect(planCloseout('acme-q1', desiredOf({ '40': 2 }, { reports: [] }), observedOf(c), '2027-02-20T00:00:00Z').blocks).toEqual([]);
  });

  it('blocks when a window closed for RIDs not yet submitted, naming the target group and when it closed', () => {
    const c = classification({ windowClosed: { 'tg-us': 2 }, windowClosedAt: { 'tg-us': '2027-01-26T00:00:00.000Z' } });
    const plan = planCloseout('acme-q1', desiredOf({ '11': 133, '932': 5 }), observedOf(c), '2027-02-20T00:00:00Z', DELTA);
    expect(plan.blocks).toEqual([{ kind: 'window_closed', targetGroupId: 'tg-us', key: 'us', rows: 2, closedAt: '2027-01-26T00:00:00.000Z' }]);
    expect(plan.steps).toEqual([]);
  });

  it('approved completes: submitted once within the tolerance, blocked outside it', () => {
    const list = { ref: `sha256:${'d'.repeat(64)}`, sha256: 'd'.repeat(64), count: 400, file: 'closeout/approved.csv' };
    const desired: DesiredCloseout = { approvedCompletes: { list, expectTerminated: 120, tolerance: 6 }, reports: [], deadlineWarningMs: 3 * DAY };
    const none = classification({ byTargetGroup: {}, notEligible: 0 });
    const within = planCloseout('acme-q1', desired, observedOf(none, { approvedCompletesWouldTerminate: 126, projectId: 'p-1' }), '2027-02-20T00:00:00Z');
    const name = approvedCompletesName('acme-q1', list.sha256);
    expect(name).toBe('acme-q1-approved-dddddddddddd');
    expect(within.steps).toEqual([{ kind: 'submit_approved_completes', name, idempotencyKey: uuidFromName(name), projectId: 'p-1', terminates: 126 }]);
    expect(within.needsApproval).toBe(true);
    const done = planCloseout('acme-q1', desired, observedOf(none, { approvedCompletesWouldTerminate: 126, projectId: 'p-1', submissions: [{ name, requestId: 'r', status: 'completed', done: true }] }), '2027-02-20T00:00:00Z');
    expect(done.steps).toEqual([]);
    const outside = planCloseout('acme-q1', desired, observedOf(none, { approvedCompletesWouldTerminate: 127, projectId: 'p-1' }), '2027-02-20T00:00:00Z');
    expect(outside.blocks).toEqual([{ kind: 'approved_completes_out_of_tolerance', expected: 120, tolerance: 6, wouldTerminate: 127 }]);
    expect(outside.steps).toEqual([]);
  });

  it('a summary for views: totals, money per currency, the nearest deadline', () => {
    const c = classification();
    const plan = planCloseout('acme-q1', desiredOf({ '11': 131, '932': 5 }), observedOf(c), '2027-02-20T12:00:00Z', DELTA);
    expect(closeoutSummary(plan, c)).toEqual({
      toSubmit: 130,
      submitted: 2,
      notEligible: 4,
      windowClosed: 0,
      reverses: [USD('289.05')],
      unpriced: 1,
      submissions: 1,
      nextDeadline: { targetGroupId: 'tg-us', key: 'us', windowClosesAt: '2027-02-26T00:00:00.000Z', daysLeft: 5 },
      blocked: false,
      needsApproval: true,
    });
  });
});

describe('reversalChunks', () => {
  const delta = sha('a delta');
  it('chunks of at most 100,000 rows, named <study>-<12 hex>-<n> from 1, each with its own key', () => {
    expect(reversalChunks('acme-q1', delta, 100_000)).toHaveLength(1);
    const steps = reversalChunks('acme-q1', delta, 250_001);
    expect(steps.map((s) => [s.name, s.chunk, s.from, s.rows])).toEqual([
      [`acme-q1-${delta.slice(0, 12)}-1`, 0, 0, 100_000],
      [`acme-q1-${delta.slice(0, 12)}-2`, 1, 100_000, 100_000],
      [`acme-q1-${delta.slice(0, 12)}-3`, 2, 200_000, 50_001],
    ]);
    expect(new Set(steps.map((s) => s.idempotencyKey)).size).toBe(3);
    expect(reversalChunks('acme-q1', delta, 0)).toEqual([]);
  });

  it('the same delta gives the same names and keys; another delta others', () => {
    expect(reversalChunks('acme-q1', delta, 10)).toEqual(reversalChunks('acme-q1', delta, 10));
    expect(reversalChunks('acme-q1', sha('another'), 10)[0].idempotencyKey).not.toBe(reversalChunks('acme-q1', delta, 10)[0].idempotencyKey);
  });

  it('refuses a hash that is not one', () => {
    expect(() => reversalChunks('acme-q1', 'abc', 10)).toThrow(CloseoutInputError);
  });
});

describe('the idempotency key', () => {
  it('is SHA-256 in plain TypeScript, equal to node:crypto\'s (workflow code has no node:crypto)', () => {
    for (const text of ['', 'abc', 'acme-q1-0123456789ab-1', 'é ☃ 𝄞', 'x'.repeat(1000)]) expect(sha256Hex(text)).toBe(sha(text));
  });

  it('is a version-8 UUID of the first 16 bytes of SHA-256(name)', () => {
    const key = uuidFromName('acme-q1-0123456789ab-1');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const hex = sha('acme-q1-0123456789ab-1');
    expect(key.replace(/-/g, '').slice(0, 12)).toBe(hex.slice(0, 12));
  });
});

describe('nextCloseoutWarning', () => {
  const tg = (key: string, toSubmit: number, windowClosesAt: string, deadlineWarningAt: string) => ({
    targetGroupId: `id-${key}`,
    key,
    byCode: { '11': { toSubmit, submitted: 0 } },
    windowClosesAt,
    daysLeft: 10,
    deadlineWarningAt,
  });
  it('owes the earliest warning of a target group with RIDs still to reverse, once per window, none once closed', () => {
    const perTargetGroup = [tg('uk', 3, '2027-01-26T00:00:00.000Z', '2027-01-23T00:00:00.000Z'), tg('us', 2, '2026-12-26T00:00:00.000Z', '2026-12-23T00:00:00.000Z'), tg('de', 0, '2026-12-26T00:00:00.000Z', '2026-12-01T00:00:00.000Z')];
    expect(nextCloseoutWarning({ phase: 'awaiting_approval', perTargetGroup })).toEqual({ key: 'us', closesAt: '2026-12-26T00:00:00.000Z', warnAt: '2026-12-23T00:00:00.000Z', toReverse: 2 });
    expect(nextCloseoutWarning({ phase: 'awaiting_approval', perTargetGroup, deadlineNotified: { us: '2026-12-26T00:00:00.000Z' } })?.key).toBe('uk');
    // A later window of the same target group is warned of again.
    expect(nextCloseoutWarning({ phase: 'blocked', perTargetGroup, deadlineNotified: { us: '2026-11-26T00:00:00.000Z', uk: '2027-01-26T00:00:00.000Z' } })?.key).toBe('us');
    expect(nextCloseoutWarning({ phase: 'closed', perTargetGroup })).toBeUndefined();
    expect(nextCloseoutWarning(undefined)).toBeUndefined();
  });
});

describe('countReversals', () => {
  it('hands over exactly the rows the classification counts to submit, as `rid,code` lines in order', async () => {
    const now = '2026-11-28T00:00:00.000Z';
    const at = (tg: string, completedAt: string) => ({ targetGroupId: tg, completedAt });
    const facts = {
      eligible: new Map([['a', at('tg1', '2026-11-02T00:00:00.000Z')], ['b', at('tg1', '2026-11-03T00:00:00.000Z')], ['c', at('tg2', '2026-11-04T00:00:00.000Z')]]),
      windowClosed: new Map([['d', at('tg2', '2026-09-01T00:00:00.000Z')]]),
      submitted: new Set(['b']),
      exchangeNow: now,
    };
    const lines: string[] = [];
    const counted = await countReversals(reversalRows(['A,11', 'b,11', 'c,932', 'd,11', 'e,11', 'broken']), facts, (line) => lines.push(line));
    expect(lines).toEqual(['a,11\n', 'c,932\n']);
    expect(counted.byTargetGroup.tg1.byCode['11']).toEqual({ toSubmit: 1, submitted: 1 });
    expect(counted.byTargetGroup.tg2.byCode['932']).toEqual({ toSubmit: 1, submitted: 0 });
    expect(counted.windowClosed).toEqual({ tg2: 1 });
    expect(counted.notEligible).toBe(1);
  });
});
