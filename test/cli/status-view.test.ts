// cli/status-view.ts: what `studyflow status` and apply's progress say of a timed or staged launch.
import { describe, expect, it } from 'vitest';
import { guardLines, launchNote, progressLine, statusTable } from '../../cli/status-view';
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

describe('guards in status', () => {
  const evidence = {
    guard: 'low_incidence', kind: 'incidence_below' as const, action: 'pause' as const, at: '2026-11-25T10:00:00.000Z', value: 0.1, threshold: 0.3, unit: 'rate' as const,
    source: 'performance' as const, figures: { entrants: 240, completes: 24 }, text: 'incidence 0.1 is below 0.3 (0.5 of the expected 0.6) after 240 entrants',
  };
  const hold = { guards: [{ guard: 'low_incidence', kind: 'incidence_below' as const, definition: '{}', at: evidence.at, text: evidence.text }] };
  const states = [{ guard: 'low_incidence', kind: 'incidence_below' as const, action: 'pause' as const, state: 'tripped' as const, detail: evidence.text }];

  it('a held target group: "held by guard" in the table, and its evidence with what resumes it under it', () => {
    const status = { targetGroups: { us: tg('us', { phase: 'paused', message: 'cannot resume: held by guard low_incidence', guards: { states, active: [evidence], hold, trips: 1 } }) } } as unknown as StudyStatus;
    expect(statusTable(plain, status)).toMatch(/us\s+paused\s+-\s+-\s+-\s+held by guard low_incidence$/m);
    expect(guardLines(plain, status)).toEqual([`  us guard low_incidence (incidence_below) tripped at ${evidence.at}: ${evidence.text}; paused it; \`studyflow approve --resume\` resumes it`]);
  });

  it('a notify-only trip says it notified; a resume says who; no guards, no lines', () => {
    const noted = { ...evidence, guard: 'spend_cap', kind: 'spend_above' as const, action: 'notify' as const, text: 'spend 2500.00 USD is above 2400.00 USD' };
    const status = {
      targetGroups: {
        uk: tg('uk', { phase: 'live', guards: { states, active: [noted], trips: 2, resumed: { by: 'ana', at: '2026-11-25T11:00:00.000Z', guards: ['low_incidence'] } } }),
        de: tg('de', { phase: 'live' }),
      },
    } as unknown as StudyStatus;
    expect(guardLines(plain, status)).toEqual([
      `  uk guard spend_cap (spend_above) tripped at ${evidence.at}: spend 2500.00 USD is above 2400.00 USD; notified`,
      '  uk resumed by ana at 2026-11-25T11:00:00.000Z (guard low_incidence acknowledged)',
    ]);
    expect(statusTable(plain, status)).not.toMatch(/held by guard/);
  });
});
