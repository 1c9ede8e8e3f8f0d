import { describe, expect, it } from 'vitest';
import { applyTimeline } from '../../bench/timeline';

const call = (method: string, route: string, atMs: number) => ({ method, route, atMs });
const event = (type: string, atMs: number) => ({ type, atMs });

describe('applyTimeline', () => {
  const calls = [
    call('GET', '/v1/demand/accounts/{account_id}/projects', 370),
    call('POST', '/v1/demand/accounts/{account_id}/target-groups/calculate-feasibility', 445),
    call('POST', '/v1/demand/accounts/{account_id}/projects', 447),
    call('POST', '/v1/x/target-groups', 511),
    call('POST', '/v1/x/fielding-run-jobs/launch-from-draft', 562),
    call('GET', '/v1/x/fielding-run-jobs/launch-from-draft/{job_id}', 630),
    call('GET', '/v1/x/fielding-run-jobs/launch-from-draft/{job_id}', 1107),
  ];
  const events = [
    event('workflow_execution_started', 350),
    event('workflow_execution_update_completed', 362),
    event('workflow_execution_update_completed', 1168),
    // After the exit (a later command's update) it is not the one apply waited on.
    event('workflow_execution_update_completed', 1400),
  ];

  it('splits the wall time into phases that add up to it', () => {
    const t = applyTimeline(calls, events, 1188);
    expect(t).toEqual({ startUpMs: 350, beforeFirstWriteMs: 95, writesMs: 117, launchJobsMs: 545, settleMs: 61, exitMs: 20 });
    expect(Object.values(t ?? {}).reduce((a, b) => a + b, 0)).toBe(1188);
  });

  it('has no timeline for a run without a launch or a workflow start', () => {
    expect(applyTimeline(calls.filter((c) => !c.route.endsWith('launch-from-draft')), events, 1188)).toBeUndefined();
    expect(applyTimeline(calls, events.slice(1), 1188)).toBeUndefined();
  });
});
