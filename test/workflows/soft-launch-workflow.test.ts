// The soft launch's failure paths in the target group's workflow (workflows/target-group/soft-launch.ts), on a
// Temporal dev server of this file's own with the in-memory API of fake-api.ts and scripted soft launch activities:
// a module write the exchange keeps refusing (412) is tried again a watch interval later, never in a loop; a judged
// failure pauses through the fielding path with its evidence; a promote whose module removal does not go through is
// recorded as refused and leaves the soft launch waiting, and the next promote goes through (module removed, resumed).
import { describe, expect, it } from 'vitest';
import type { OverviewFigures } from '../../api/operations/live-target-groups';
import type { DesiredSoftLaunch } from '../../plan/soft-launch';
import { softLaunchDecisionUpdate, studyWorkflowId, type StudyStatus } from '../../workflows/messages';
import { FakeApi, targetGroup } from './fake-api';
import { desiredStudyMaker, useWorkflowUnitStack } from './workflow-env';

const WATCH_MS = 300;
let fake = new FakeApi();
/** What setSoftLaunchModule answers, call by call (then `applied`), and when each call came (workflow-independent wall time). */
let moduleAnswers: ('applied' | 'precondition_failed')[] = [];
let moduleCalls: { module: unknown; at: number }[] = [];
let overview: OverviewFigures = { status: 'live', completes: 0 };
const stack = useWorkflowUnitStack({
  taskQueue: 'soft-launch-unit',
  continueAsNewAfter: 10_000,
  fake: () => fake,
  activities: () => ({
    setSoftLaunchModule: async (input: { module: unknown }) => {
      moduleCalls.push({ module: input.module, at: Date.now() });
      return { outcome: moduleAnswers.shift() ?? 'applied' };
    },
    readOverviewFigures: async () => overview,
  }),
});
const study = desiredStudyMaker('s');
const { apply, until } = stack;

/** 20 completes within 2 s, judged on 10 or more; the interview may take 1.5 × the expected minutes at most. */
const soft = (loi: number): DesiredSoftLaunch => ({
  completes: 20,
  completesWritten: 20,
  fillingGoal: 100,
  maxDuration: 'PT2S',
  maxDurationMs: 2_000,
  demographicsStrictnessPercentage: 100,
  analysis: { minCompletes: 10, lengthOfInterview: { expectedMinutes: loi, failAbove: 1.5 } },
  on: { pass: 'promote', fail: 'pause', inconclusive: 'pause' },
  analysisOnly: false,
});

describe('a soft launch whose writes the exchange refuses', () => {
  it('retries a refused module a watch interval later, pauses a failure with its evidence, and records a promote that did not go through', async () => {
    fake = new FakeApi();
    moduleAnswers = ['precondition_failed', 'precondition_failed'];
    moduleCalls = [];
    overview = { status: 'live', completes: 0 };
    const tg = targetGroup('s');
    const loi = tg.draft.expected_length_of_interview_minutes as number;
    const desired = study('soft', [{ ...tg, timing: { ...tg.timing, watchIntervalMs: WATCH_MS }, softLaunch: soft(loi) }]);
    await apply(desired);

    // Two refusals (412 three times each), then assigned: each try a watch interval after the one before, not a loop.
    const running = await until('soft', (s: StudyStatus) => s.targetGroups.s?.softLaunch?.state === 'running', 'the module assigned');
    expect(moduleCalls).toHaveLength(3);
    for (let i = 1; i < moduleCalls.length; i += 1) expect(moduleCalls[i].at - moduleCalls[i - 1].at).toBeGreaterThanOrEqual(WATCH_MS);
    expect(moduleCalls[0].module).toMatchObject({ filling_goal_percentage: 20, demographics_strictness_percentage: 100 });
    expect(running.targetGroups.s.softLaunch?.message).toBeUndefined();

    // Its completes in, the interview twice as long as expected: a failure, paused through the fielding path.
    overview = { status: 'live', completes: 20, medianLengthOfInterviewSeconds: loi * 120 };
    const failed = await until('soft', (s: StudyStatus) => s.targetGroups.s?.softLaunch?.state === 'paused' && s.targetGroups.s.phase === 'paused', 'the failure');
    const decision = failed.targetGroups.s.softLaunch!.decision!;
    expect(decision).toMatchObject({ outcome: 'fail', action: 'pause', endedBy: 'completes' });
    expect(decision.evidence).toEqual([
      expect.objectContaining({ metric: 'length_of_interview', value: loi * 120, threshold: { failAbove: loi * 90 }, sampleSize: 20, verdict: 'fail' }),
    ]);
    expect(fake.callsOf('pauseFieldingRun').map((c) => c.keys)).toEqual([['s']]);

    // A promote whose module removal keeps meeting 412: refused, recorded with why; it still waits, nothing resumed.
    const handle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'soft'));
    moduleAnswers = ['precondition_failed'];
    const removalsBefore = moduleCalls.length;
    expect(await handle.executeUpdate(softLaunchDecisionUpdate, { args: [{ decision: 'promote', by: 'ana' }] })).toEqual(['s']);
    const refused = await until('soft', (s: StudyStatus) => s.targetGroups.s?.softLaunch?.decidedBy?.refused !== undefined, 'the refused promote');
    expect(refused.targetGroups.s.softLaunch).toMatchObject({ state: 'paused', decidedBy: { by: 'ana', decision: 'promote', refused: expect.stringMatching(/412 three times/) } });
    expect(moduleCalls.slice(removalsBefore).map((c) => c.module)).toEqual([null]);
    expect(fake.callsOf('resumeFieldingRun')).toEqual([]);

    // Tried again: the module removed, the run resumed, promoted by who.
    expect(await handle.executeUpdate(softLaunchDecisionUpdate, { args: [{ decision: 'promote', by: 'ana' }] })).toEqual(['s']);
    const promoted = await until('soft', (s: StudyStatus) => s.targetGroups.s?.softLaunch?.state === 'promoted' && s.targetGroups.s.phase === 'live', 'the promote');
    expect(promoted.targetGroups.s.softLaunch?.decidedBy).toEqual({ by: 'ana', decision: 'promote', at: expect.any(String) });
    expect(fake.callsOf('resumeFieldingRun').map((c) => c.keys)).toEqual([['s']]);
    // Nothing waits any more: a decision reaches no target group.
    expect(await handle.executeUpdate(softLaunchDecisionUpdate, { args: [{ decision: 'abort', by: 'ana' }] })).toEqual([]);
  });
});
