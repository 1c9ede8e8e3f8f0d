import { describe, expect, it } from 'vitest';
import { lastLiveAtMs } from '../../bench/study-timing';
import type { StudyStatus } from '../../workflows/messages';

function status(phases: Record<string, [string, string]>): StudyStatus {
  return {
    studyId: 'bench',
    accountId: '1001',
    phase: 'converged',
    writes: 0,
    exclusionGroups: {},
    updatedAt: '2026-01-01T00:00:10.000Z',
    targetGroups: Object.fromEntries(
      Object.entries(phases).map(([key, [phase, updatedAt]]) => [key, { key, phase, updatedAt, events: { received: 0, sessionsByStatus: {} } }]),
    ),
  } as StudyStatus;
}

describe('lastLiveAtMs', () => {
  it('is the latest updatedAt of the live target groups', () => {
    expect(lastLiveAtMs(status({ a: ['live', '2026-01-01T00:00:01.500Z'], b: ['live', '2026-01-01T00:00:03.250Z'] }))).toBe(Date.parse('2026-01-01T00:00:03.250Z'));
  });

  it('takes liveAt, when the status has it, over updatedAt (a later report of the same phase)', () => {
    const s = status({ a: ['live', '2026-01-01T00:00:05.000Z'], b: ['live', '2026-01-01T00:00:04.000Z'] });
    s.targetGroups.a.liveAt = '2026-01-01T00:00:02.000Z';
    expect(lastLiveAtMs(s)).toBe(Date.parse('2026-01-01T00:00:04.000Z'));
  });

  it('refuses a study with a target group that is not live, naming it', () => {
    expect(() => lastLiveAtMs(status({ a: ['live', '2026-01-01T00:00:01Z'], b: ['gate_blocked', '2026-01-01T00:00:02Z'] }))).toThrow(/1 target group\(s\) not live \(b: gate_blocked\)/);
    expect(() => lastLiveAtMs(status({}))).toThrow(/no target groups/);
  });
});
