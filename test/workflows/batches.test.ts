import { describe, expect, it } from 'vitest';
import { BATCH_MAX } from '../../activities/batch';
import type { DesiredTargetGroup, PlannedAction } from '../../plan/types';
import { BATCH_SIZE, inBatches, launchesAtOnce, launchesWithDraft } from '../../workflows/batches';

describe('inBatches', () => {
  it('splits in order into groups of at most the size, the last one shorter', () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([1, 2, 3, 4], 2)).toEqual([[1, 2], [3, 4]]);
    expect(inBatches([], 3)).toEqual([]);
  });

  it('uses BATCH_SIZE by default, which the batch activity accepts', () => {
    const keys = Array.from({ length: 2 * BATCH_SIZE + 1 }, (_, i) => `tg${i}`);
    expect(inBatches(keys).map((b) => b.length)).toEqual([BATCH_SIZE, BATCH_SIZE, 1]);
    expect(BATCH_SIZE).toBeLessThanOrEqual(BATCH_MAX);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => inBatches([1], 0)).toThrow(RangeError);
    expect(() => inBatches([1], 1.5)).toThrow(/positive integer/);
  });
});

describe('launchesAtOnce', () => {
  const tg = (mode: 'auto' | 'manual') => ({ key: 'us', launch: { mode } }) as unknown as DesiredTargetGroup;
  const action = (kind: PlannedAction['kind'], resource: PlannedAction['resource']): PlannedAction => ({ kind, resource, key: 'us', reason: 'test' });
  const launch = action('launch', 'fielding');

  it('is true for an automatic launch after nothing but the study’s own writes', () => {
    expect(launchesAtOnce(tg('auto'), [action('create', 'target_group'), action('add_to_group', 'exclusion_group'), launch])).toBe(true);
    expect(launchesAtOnce(tg('auto'), [action('none', 'profiles'), launch])).toBe(true);
  });

  it('is false without a launch, for a manual launch, or with work of the target group’s own before it', () => {
    expect(launchesAtOnce(tg('auto'), [action('create', 'target_group')])).toBe(false);
    expect(launchesAtOnce(tg('manual'), [action('create', 'target_group'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('update', 'profiles'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('upload', 'id_list'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('upload', 'recontact_list'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('blocked', 'target_group'), launch])).toBe(false);
  });
});

describe('launchesWithDraft', () => {
  const tg = (mode: 'auto' | 'manual') => ({ key: 'us', launch: { mode } }) as unknown as DesiredTargetGroup;
  const action = (kind: PlannedAction['kind'], resource: PlannedAction['resource']): PlannedAction => ({ kind, resource, key: 'us', reason: 'test' });
  const launch = action('launch', 'fielding');

  it('is true for a new draft launched automatically with nothing the study writes between its draft and its launch', () => {
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), launch])).toBe(true);
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('create', 'activity_exclusions'), action('none', 'profiles'), launch])).toBe(true);
  });

  it('is false when the study writes a membership or an update between them, or when it does not launch at once', () => {
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('add_to_group', 'exclusion_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('auto'), [action('update', 'target_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('manual'), [action('create', 'target_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('upload', 'id_list'), launch])).toBe(false);
  });
});
