// The registry's exposition is strict Prometheus text 0.0.4: names, escaping, one TYPE per family, counters
// that only grow, label sets that match the definition; and the named metrics studyflow documents.
import { describe, expect, it } from 'vitest';
import { MetricDefinitionError, MetricsRegistry } from '../../telemetry/metrics';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

describe('MetricsRegistry', () => {
  it('renders counters, gauges and collected families as parseable text with HELP and TYPE', () => {
    const registry = new MetricsRegistry();
    const calls = registry.counter('demo_calls_total', 'Calls.\nSecond line with a \\ backslash.', ['operation', 'status']);
    const depth = registry.gauge('demo_depth', 'Depth.');
    registry.collected('demo_seen_total', 'Seen.', 'counter', ['kind'], () => [
      { labels: { kind: 'a' }, value: 3 },
      { labels: { kind: 'b' }, value: 0 },
    ]);
    calls.inc({ operation: 'get_x', status: '200' });
    calls.inc({ operation: 'get_x', status: '200' }, 2);
    calls.inc({ operation: 'say "hi"\\now\n', status: '500' });
    depth.set({}, 1.5);
    const text = registry.render();
    const parsed = parsePrometheusText(text);
    expect(parsed.types.get('demo_calls_total')).toBe('counter');
    expect(parsed.types.get('demo_depth')).toBe('gauge');
    expect(parsed.help.get('demo_calls_total')).toBe('Calls.\\nSecond line with a \\\\ backslash.');
    expect(sampleValue(parsed, 'demo_calls_total', { operation: 'get_x', status: '200' })).toBe(3);
    expect(sampleValue(parsed, 'demo_calls_total', { operation: 'say "hi"\\now\n', status: '500' })).toBe(1);
    expect(sampleValue(parsed, 'demo_depth')).toBe(1.5);
    expect(sampleValue(parsed, 'demo_seen_total', { kind: 'a' })).toBe(3);
    expect(text).toContain('demo_calls_total{operation="say \\"hi\\"\\\\now\\n",status="500"} 1\n');
  });

  it('refuses what would make the exposition invalid, by name', () => {
    const registry = new MetricsRegistry();
    expect(() => registry.counter('bad-name', 'x')).toThrow(MetricDefinitionError);
    expect(() => registry.counter('ok_total', 'x', ['__reserved'])).toThrow(/not a label name/);
    const counter = registry.counter('ok_total', 'x', ['a']);
    expect(() => registry.gauge('ok_total', 'x', ['a'])).toThrow(/already defined as a counter/);
    expect(() => counter.inc({ b: '1' })).toThrow(/takes the labels \{a\}/);
    expect(() => counter.inc({ a: '1' }, -1)).toThrow(/grows/);
    expect(() => registry.gauge('g', 'x').set({}, Number.NaN)).toThrow(/finite/);
    // The same definition again is the same family.
    registry.counter('ok_total', 'x', ['a']).inc({ a: '1' });
    expect(counter.value({ a: '1' })).toBe(1);
  });

  it('a gauge replaced as a whole drops the label sets not given', () => {
    const metrics = createStudyflowMetrics();
    metrics.setTargetGroupPhases({ fielding: 3, draft: 1 });
    metrics.setTargetGroupPhases({ fielding: 2, completed: 2 });
    const parsed = parsePrometheusText(metrics.registry.render());
    expect(sampleValue(parsed, 'studyflow_target_groups', { phase: 'fielding' })).toBe(2);
    expect(sampleValue(parsed, 'studyflow_target_groups', { phase: 'completed' })).toBe(2);
    expect(sampleValue(parsed, 'studyflow_target_groups', { phase: 'draft' })).toBeUndefined();
  });

  it('defines every metric docs/operations.md names, and counts API calls and their retries', () => {
    const metrics = createStudyflowMetrics();
    metrics.recordApiCall({ operation: 'get_target_group_performance', status: 200 });
    metrics.recordApiCall({ operation: 'get_target_group_performance', status: 200, retry: 'activity_attempt' });
    metrics.recordApiCall({ operation: 'create_project' });
    metrics.guardTrips.inc({ guard: 'incidence_below' });
    const parsed = parsePrometheusText(metrics.registry.render());
    for (const name of [
      'studyflow_api_calls_total',
      'studyflow_api_retries_total',
      'studyflow_target_groups',
      'studyflow_guard_trips_total',
      'studyflow_notifications_sent_total',
      'studyflow_notifications_failed_total',
      'studyflow_notifications_deduplicated_total',
    ]) {
      expect(parsed.types.has(name), name).toBe(true);
    }
    expect(sampleValue(parsed, 'studyflow_api_calls_total', { operation: 'get_target_group_performance', status: '200' })).toBe(2);
    expect(sampleValue(parsed, 'studyflow_api_calls_total', { operation: 'create_project', status: 'none' })).toBe(1);
    expect(sampleValue(parsed, 'studyflow_api_retries_total', { operation: 'get_target_group_performance', reason: 'activity_attempt' })).toBe(1);
    expect(sampleValue(parsed, 'studyflow_guard_trips_total', { guard: 'incidence_below' })).toBe(1);
  });
});

describe('the strict parser itself', () => {
  it('rejects malformed expositions', () => {
    expect(() => parsePrometheusText('a 1')).toThrow(/newline/);
    expect(() => parsePrometheusText('a{b="c} 1\n')).toThrow();
    expect(() => parsePrometheusText('a{b="c"} x\n')).toThrow(/value/);
    expect(() => parsePrometheusText('# TYPE a counter\n# TYPE a counter\n')).toThrow(/twice/);
    expect(() => parsePrometheusText('a 1\nb 1\na 2\n')).toThrow(/continues/);
    expect(() => parsePrometheusText('a{b="\\x"} 1\n')).toThrow(/label/);
  });
});
