// A small metrics registry that renders the Prometheus text exposition format (version 0.0.4): counters and
// gauges with labels, set by the code that counts, or read from a collector at scrape time. One registry per
// process (the worker's, the receiver's); tests make their own.

export type LabelValues = Record<string, string>;

/** A metric family as scraped: `# HELP`, `# TYPE` and one sample per label set. */
interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  labelNames: readonly string[];
  /** Label key (labels in labelNames order, joined) -> sample. */
  samples: Map<string, { labels: LabelValues; value: number }>;
  /** Read at scrape time (values the process already keeps, e.g. the receiver's stats). */
  collect?: () => { labels: LabelValues; value: number }[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Thrown on a metric defined twice with another shape, a bad name, or labels that do not match the definition. */
export class MetricDefinitionError extends Error {
  override readonly name = 'MetricDefinitionError';
}

export class Counter {
  constructor(private readonly family: Family) {}
  /** Adds `by` (default 1, never negative: a counter only grows). */
  inc(labels: LabelValues = {}, by = 1): void {
    if (!(by >= 0) || !Number.isFinite(by)) throw new MetricDefinitionError(`${this.family.name}: a counter grows by a finite amount >= 0, not ${by}`);
    const sample = sampleOf(this.family, labels);
    sample.value += by;
  }
  /** The current value for a label set (0 when never counted). */
  value(labels: LabelValues = {}): number {
    return this.family.samples.get(labelKey(this.family, labels))?.value ?? 0;
  }
}

export class Gauge {
  constructor(private readonly family: Family) {}
  set(labels: LabelValues, value: number): void {
    if (!Number.isFinite(value)) throw new MetricDefinitionError(`${this.family.name}: a gauge holds a finite number, not ${value}`);
    sampleOf(this.family, labels).value = value;
  }
  /** Replaces every sample: label sets not given disappear (e.g. a phase no target group is in any more). */
  replaceAll(samples: { labels: LabelValues; value: number }[]): void {
    this.family.samples.clear();
    for (const { labels, value } of samples) this.set(labels, value);
  }
  value(labels: LabelValues = {}): number {
    return this.family.samples.get(labelKey(this.family, labels))?.value ?? 0;
  }
}

function labelKey(family: Family, labels: LabelValues): string {
  const names = Object.keys(labels);
  if (names.length !== family.labelNames.length || !family.labelNames.every((n) => n in labels)) {
    throw new MetricDefinitionError(`${family.name} takes the labels {${family.labelNames.join(', ')}}, got {${names.join(', ')}}`);
  }
  return family.labelNames.map((n) => labels[n]).join('\u0000');
}

function sampleOf(family: Family, labels: LabelValues): { labels: LabelValues; value: number } {
  const key = labelKey(family, labels);
  let sample = family.samples.get(key);
  if (!sample) {
    sample = { labels: { ...labels }, value: 0 };
    family.samples.set(key, sample);
  }
  return sample;
}

/** HELP text escaping: backslash and newline. */
const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
/** Label value escaping: backslash, double quote and newline. */
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatSample(name: string, labelNames: readonly string[], labels: LabelValues, value: number): string {
  const pairs = labelNames.map((n) => `${n}="${escapeLabel(labels[n] ?? '')}"`);
  return `${name}${pairs.length ? `{${pairs.join(',')}}` : ''} ${formatValue(value)}`;
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return new Counter(this.define(name, help, 'counter', labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return new Gauge(this.define(name, help, 'gauge', labelNames));
  }

  /** A family whose samples are read when scraped (values the process already counts). */
  collected(name: string, help: string, type: 'counter' | 'gauge', labelNames: readonly string[], collect: Family['collect']): void {
    const family = this.define(name, help, type, labelNames);
    family.collect = collect;
  }

  /** The whole registry in the text exposition format 0.0.4 (ends with a newline). */
  render(): string {
    const lines: string[] = [];
    for (const family of this.families.values()) {
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      const samples = family.collect ? family.collect() : [...family.samples.values()];
      for (const { labels, value } of samples) {
        labelKey(family, labels);
        lines.push(formatSample(family.name, family.labelNames, labels, value));
      }
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  private define(name: string, help: string, type: Family['type'], labelNames: readonly string[]): Family {
    if (!METRIC_NAME.test(name)) throw new MetricDefinitionError(`not a Prometheus metric name: ${name}`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new MetricDefinitionError(`${name}: not a label name: ${label}`);
    }
    const existing = this.families.get(name);
    if (existing) {
      if (existing.type !== type || existing.labelNames.join(',') !== labelNames.join(',')) {
        throw new MetricDefinitionError(`${name} is already defined as a ${existing.type} with labels {${existing.labelNames.join(', ')}}`);
      }
      return existing;
    }
    const family: Family = { name, help, type, labelNames: [...labelNames], samples: new Map() };
    this.families.set(name, family);
    return family;
  }
}
