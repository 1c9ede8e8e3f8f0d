// What a target group's workflow hands its next run at continue-as-new (TargetGroupState.carried, as the
// payload converter sends it: JSON): the watch's pacing, the last `updated_at` and figures not yet taken survive it.
import { describe, expect, it } from 'vitest';
import type { TargetGroupFigures } from '../../workflows/child-protocol';
import { TargetGroupState, type TargetGroupWorkflowInput } from '../../workflows/target-group/state';
import { targetGroup } from './fake-api';

const input = (carried?: TargetGroupWorkflowInput['carried']): TargetGroupWorkflowInput => ({
  studyWorkflowId: 'study/1001/carry',
  accountId: '1001',
  studyId: 'carry',
  businessUnitId: '2001',
  apiVersion: '2025-12-18',
  revision: { revision: 'r1', desired: targetGroup('c'), targetGroupId: '01TG', projectId: '01P', steps: [] },
  ...(carried ? { carried } : {}),
});
const nextRun = (state: TargetGroupState) => new TargetGroupState(input(JSON.parse(JSON.stringify(state.carried())) as TargetGroupWorkflowInput['carried']));

describe('a target group continued as new', () => {
  it("keeps the watch's pacing, the last updated_at, and figures that arrived before the watch took them", () => {
    const state = new TargetGroupState(input());
    const figures: TargetGroupFigures = { id: '01TG', status: 'live', completes: 7, prescreens: 21, updatedAt: '2026-11-26T08:00:00.000Z' };
    Object.assign(state, { nextReadAt: 1_000, quietMs: 21_600_000, lastPerformanceAt: 500, figuresSeen: true, unread: true, updatedAt: '2026-11-26T07:00:00.000Z', figures });
    const next = nextRun(state);
    expect(next.figures).toEqual(figures);
    expect(next.updatedAt).toBe('2026-11-26T07:00:00.000Z');
    expect({ nextReadAt: next.nextReadAt, quietMs: next.quietMs, lastPerformanceAt: next.lastPerformanceAt, figuresSeen: next.figuresSeen, unread: next.unread }).toEqual({ nextReadAt: 1_000, quietMs: 21_600_000, lastPerformanceAt: 500, figuresSeen: true, unread: true });
  });

  it('carries no figures or updated_at it never had', () => {
    const next = nextRun(new TargetGroupState(input()));
    expect(next.figures).toBeUndefined();
    expect(next.updatedAt).toBeUndefined();
    expect(next.carried().watch).not.toHaveProperty('figures');
  });
});
