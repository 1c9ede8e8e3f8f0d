// cli/status-view.ts: what `studyflow status` and apply's progress say of a timed or staged launch.
import { describe, expect, it } from 'vitest';
import { launchNote, progressLine, statusTable } from '../../cli/status-view';
import { Output } from '../../cli/output';
import type { StudyStatus, TargetGroupStatus } from '../../workflows/messages';

const tg = (key: string, patch: Partial<TargetGroupStatus>): TargetGroupStatus => ({ key, phase: 'draft', events: { received: 0, sessionsByStatus: {} }, updatedAt: '2026-11-25T00:00:00Z', ...patch });
const plain = new Output({ stdout: { write: () => true } as never, stderr: { write: () => true } as never }, { NO_COLOR: '1' });

describe('launchNote', () => {
  it('says when a scheduled target group goes live, and what a staged one waits for with what it has', () => {
    expect(launchNote(tg('us', { phase: 'scheduled', launchAt: '2027-03-01T08:00:00-05:00' }))).toBe('launches at 2027-03-01T08:00:00-05:00');
    expect(launchNote(tg('de', { phase: 'awaiting_completes', launchAfter: { targetGroup: 'us', completes: 50, has: 12 } }))).toBe('launches after us has 50 completes (it has 12)');
    expect(launchNote(tg('de', { phase: 'awaiting_completes', launchAfter: { targetGroup: 'us', completes: 50 } }))).toBe('launches after us has 50 completes');
  });

  it('says nothing once the launch is past (a live target group keeps no note from its launch)', () => {
    expect(launchNote(tg('us', { phase: 'live', launchAt: '2027-03-01T08:00:00-05:00' }))).toBeUndefined();
    expect(launchNote(tg('de', { phase: 'checking_feasibility', launchAfter: { targetGroup: 'us', completes: 50, has: 50 } }))).toBeUndefined();
  });

  it('is the NOTE of the status table and the progress line, before any other message', () => {
    const status = {
      targetGroups: {
        us: tg('us', { phase: 'scheduled', launchAt: '2027-03-01T08:00:00-05:00', message: 'launches at 2027-03-01T08:00:00-05:00 (scheduled in the exchange)' }),
        de: tg('de', { phase: 'awaiting_completes', launchAfter: { targetGroup: 'us', completes: 50, has: 0 } }),
      },
    } as unknown as StudyStatus;
    const table = statusTable(plain, status);
    expect(table).toMatch(/de\s+awaiting_completes\s+-\s+-\s+-\s+launches after us has 50 completes \(it has 0\)/);
    expect(table).toMatch(/us\s+scheduled\s+-\s+-\s+-\s+launches at 2027-03-01T08:00:00-05:00$/m);
    expect(progressLine(status.targetGroups.us)).toBe('us: scheduled · launches at 2027-03-01T08:00:00-05:00');
  });
});
