// The phase collector of the worker (worker/target-group-phases.ts) over a recording stand-in of Temporal's
// count call: the query per phase, the figures it sets, how often it asks, and what a failure leaves. The
// collector against the real dev server: test/integration/notify-e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { PhaseIntervalError, phaseIntervalFromEnv, phaseQuery, TargetGroupPhaseCollector, type VisibilityCounter } from '../../worker/target-group-phases';
import { TARGET_GROUP_PHASES, TARGET_GROUP_WORKFLOW_TYPE } from '../../workflows/search-attributes';
import { TRANSITIONS } from '../../workflows/phases';
import { targetGroupWorkflow } from '../../workflows/target-group-workflow';

/** Answers each count from `running` (phase -> count), as the service does: no `count` for zero, a Long otherwise. */
function visibility(running: Record<string, number>, fail?: () => boolean): VisibilityCounter & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    countWorkflowExecutions: ({ query }) => {
      queries.push(query);
      if (fail?.()) return Promise.reject(new Error('14 UNAVAILABLE: connection refused'));
      const phase = /StudyflowPhase = '([a-z_]+)'$/.exec(query)?.[1] ?? '';
      const n = running[phase] ?? 0;
      return Promise.resolve(n === 0 ? {} : { count: { toNumber: () => n } });
    },
  };
}

const samples = (metrics: ReturnType<typeof createStudyflowMetrics>) =>
  Object.fromEntries(
    parsePrometheusText(metrics.registry.render())
      .samples.filter((s) => s.name === 'studyflow_target_groups')
      .map((s) => [s.labels.phase, s.value]),
  );

describe('the target groups by phase', () => {
  it('names every phase of the transition table and the target group workflow\'s type', () => {
    expect([...TARGET_GROUP_PHASES].sort()).toEqual([...new Set(Object.values(TRANSITIONS).map((t) => t.phase))].sort());
    expect(TARGET_GROUP_WORKFLOW_TYPE).toBe(targetGroupWorkflow.name);
  });

  it('counts the running target-group workflows of its task queue in each phase, zeros included', async () => {
    const metrics = createStudyflowMetrics();
    const service = visibility({ live: 3, gate_blocked: 1 });
    const collector = new TargetGroupPhaseCollector({ workflowService: service, namespace: 'studies', taskQueue: "q'1", metrics });
    await collector.refresh();
    expect(service.queries).toHaveLength(TARGET_GROUP_PHASES.length);
    expect(service.queries[0]).toBe("WorkflowType = 'targetGroupWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = 'q\\'1' AND StudyflowPhase = 'drafting'");
    expect(phaseQuery('studyflow', 'live')).toMatch(/TaskQueue = 'studyflow' AND StudyflowPhase = 'live'$/);
    const figures = samples(metrics);
    expect(figures).toMatchObject({ live: 3, gate_blocked: 1, paused: 0, failed: 0 });
    expect(Object.keys(figures)).toHaveLength(TARGET_GROUP_PHASES.length);
  });

  it('on a scrape, counts again only once the last count is older than the interval', async () => {
    let now = 1_000_000;
    const metrics = createStudyflowMetrics();
    const running: Record<string, number> = { live: 1 };
    const service = visibility(running);
    const collector = new TargetGroupPhaseCollector({ workflowService: service, namespace: 'default', taskQueue: 'q', metrics, intervalMs: 5_000, now: () => now });
    await collector.refreshIfStale();
    const once = service.queries.length;
    expect(once).toBe(TARGET_GROUP_PHASES.length);
    running.live = 2;
    now += 4_999;
    await Promise.all([collector.refreshIfStale(), collector.refreshIfStale()]);
    expect(service.queries.length).toBe(once);
    expect(samples(metrics).live).toBe(1);
    now += 1;
    await Promise.all([collector.refreshIfStale(), collector.refreshIfStale()]);
    expect(service.queries.length).toBe(2 * once);
    expect(samples(metrics).live).toBe(2);
  });

  it('a count that fails leaves no figure (not a stale one) and says so once, then again when it recovers', async () => {
    let down = false;
    const lines: string[] = [];
    const metrics = createStudyflowMetrics();
    const collector = new TargetGroupPhaseCollector({ workflowService: visibility({ live: 4 }, () => down), namespace: 'default', taskQueue: 'q', metrics, log: (l) => lines.push(l) });
    await collector.refresh();
    expect(samples(metrics).live).toBe(4);
    down = true;
    await collector.refresh();
    await collector.refresh();
    expect(samples(metrics)).toEqual({});
    expect(lines).toEqual([expect.stringMatching(/^target groups by phase: Temporal's visibility did not answer \(14 UNAVAILABLE: connection refused\)/)]);
    down = false;
    await collector.refresh();
    expect(samples(metrics).live).toBe(4);
    expect(lines[1]).toBe('target groups by phase: counting again');
  });

  it('takes its interval from STUDYFLOW_METRICS_PHASES_INTERVAL_MS, refusing what is not a count of 1000 ms or more', () => {
    expect(phaseIntervalFromEnv({})).toBe(30_000);
    expect(phaseIntervalFromEnv({ STUDYFLOW_METRICS_PHASES_INTERVAL_MS: ' ' })).toBe(30_000);
    expect(phaseIntervalFromEnv({ STUDYFLOW_METRICS_PHASES_INTERVAL_MS: '2000' })).toBe(2_000);
    for (const bad of ['500', '2s', '1500.5']) {
      expect(() => phaseIntervalFromEnv({ STUDYFLOW_METRICS_PHASES_INTERVAL_MS: bad })).toThrow(PhaseIntervalError);
    }
    expect(() => phaseIntervalFromEnv({ STUDYFLOW_METRICS_PHASES_INTERVAL_MS: '2s' })).toThrow('STUDYFLOW_METRICS_PHASES_INTERVAL_MS must be a whole number of milliseconds, 1000 or more (it is "2s")');
  });
});
