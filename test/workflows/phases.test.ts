// The phase a target group's status in the API stands for (the reference's TargetGroupStatus, every value).
import { describe, expect, it } from 'vitest';
import { enterPhase, eventOfRemote, IllegalTransition, NO_ENTRY, TRANSITIONS, type PhaseEntry } from '../../workflows/phases';

describe('eventOfRemote', () => {
  it.each([
    ['draft', 'draft'],
    ['scheduled', 'scheduled'],
    ['live', 'live'],
    ['paused', 'paused'],
    ['completed', 'completed'],
    ['archived', 'completed'],
  ])('%s is the %s phase', (status, phase) => {
    expect(TRANSITIONS[eventOfRemote(status)].phase).toBe(phase);
  });
});

describe('the phase writer (enterPhase)', () => {
  it('enters the phase the table gives an event from a phase it may leave', () => {
    const entry = { key: 'us', phase: 'draft' as const };
    expect(enterPhase(entry, 'reading_gate')).toEqual({ from: 'draft', phase: 'checking_feasibility', passing: true });
    expect(entry.phase).toBe('checking_feasibility');
  });

  it('writes the first phase of a target group new to the study (no entry yet)', () => {
    const entry: PhaseEntry = { key: 'us' };
    expect(enterPhase(entry, 'drafting').from).toBe(NO_ENTRY);
    expect(entry.phase).toBe('drafting');
  });

  it('refuses an event from a phase it may not leave, names it, and leaves the phase as it was', () => {
    const entry: PhaseEntry = { key: 'us', phase: 'completed' };
    expect(() => enterPhase(entry, 'launching')).toThrow(IllegalTransition);
    expect(() => enterPhase(entry, 'launching')).toThrow('target group us: event launching cannot leave phase completed');
    expect(() => enterPhase({ key: 'de', phase: 'draft' }, 'paused')).toThrow('event paused cannot leave phase draft (it may leave live, paused)');
    expect(() => enterPhase({ key: 'fr' }, 'went_live')).toThrow(IllegalTransition);
    expect(entry.phase).toBe('completed');
  });

  it('takes what the API reports in any phase, and a failure in any phase', () => {
    for (const from of [NO_ENTRY, 'drafting', 'launching', 'live', 'completed'] as const) {
      const entry: PhaseEntry = { key: 'us', ...(from === NO_ENTRY ? {} : { phase: from }) };
      expect(enterPhase(entry, 'found_paused').phase).toBe('paused');
      expect(enterPhase(entry, 'failed').phase).toBe('failed');
    }
  });

  it('gives every event a from column naming real phases', () => {
    const phases = new Set<string>([NO_ENTRY, ...Object.values(TRANSITIONS).map((t) => t.phase)]);
    for (const [event, t] of Object.entries(TRANSITIONS)) {
      expect(t.from.length, event).toBeGreaterThan(0);
      for (const from of t.from) expect(phases.has(from), `${event} from ${from}`).toBe(true);
    }
  });
});
