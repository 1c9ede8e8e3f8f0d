// The study's loop between revisions, on a Temporal dev server of this file's own whose history limit is never
// reached: the study does not continue as new here, so what wakes its loop is its own handlers, not a new run.
import { describe, expect, it } from 'vitest';
import { approveUpdate, studyWorkflowId } from '../../workflows/messages';
import { FakeApi, targetGroup } from './fake-api';
import { desiredStudyMaker, settled, useWorkflowUnitStack } from './workflow-env';

let fake = new FakeApi();
const stack = useWorkflowUnitStack({ taskQueue: 'study-wake-unit', continueAsNewAfter: 100_000, fake: () => fake });
const study = desiredStudyMaker('w');

describe("the study's loop", () => {
  it('starts watching a target group that goes live after its revision settled (approved later), without a new apply', async () => {
    fake = new FakeApi();
    const manual = study('approve-watch', [targetGroup('m', { launch: { mode: 'manual', requireFeasible: true }, timing: { ...targetGroup('m').timing, watchIntervalMs: 300 } })]);
    const handle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'approve-watch'));
    await stack.apply(manual);
    const waiting = await stack.until('approve-watch', settled(manual.revision), 'settled awaiting approval');
    expect(waiting.targetGroups.m.phase).toBe('awaiting_approval');
    const run = (await handle.describe()).runId;
    // Nothing watched yet: the study reads no list while no target group is live.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(fake.callsOf('listTargetGroupFigures')).toEqual([]);
    await handle.executeUpdate(approveUpdate, { args: [{ targetGroup: 'm' }] });
    await stack.until('approve-watch', (x) => x.targetGroups.m.phase === 'live', 'live once approved');
    // The target group's progress wakes the study's loop (hasWatched), which reads the list every interval from now on.
    const deadline = Date.now() + 20_000;
    while (fake.callsOf('listTargetGroupFigures').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fake.callsOf('listTargetGroupFigures').length).toBeGreaterThanOrEqual(2);
    // The same run throughout: no continue-as-new started the loop again.
    expect((await handle.describe()).runId).toBe(run);
  });
});
