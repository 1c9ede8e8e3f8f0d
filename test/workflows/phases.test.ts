// The phase a target group's status in the API stands for (the reference's TargetGroupStatus, every value).
import { describe, expect, it } from 'vitest';
import { eventOfRemote, TRANSITIONS } from '../../workflows/phases';

describe('eventOfRemote', () => {
  it.each([
    ['draft', 'draft'],
    ['scheduled', 'live'],
    ['live', 'live'],
    ['paused', 'paused'],
    ['completed', 'completed'],
    ['archived', 'completed'],
  ])('%s is the %s phase', (status, phase) => {
    expect(TRANSITIONS[eventOfRemote(status)].phase).toBe(phase);
  });
});
