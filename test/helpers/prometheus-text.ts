// A strict reader of the Prometheus text exposition format 0.0.4, for tests: every line is a HELP, a TYPE, a
// comment or a sample; names and label names have the allowed characters; label values are quoted with only
// \\, \" and \n escaped; values are floats (or NaN, +Inf, -Inf); a family's TYPE comes before its samples and
// once; samples of a family are not split by another family. Anything else throws with the line number.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Suffixes a histogram's or summary's samples add to the family name. */
const SUFFIXES = ['_bucket', '_sum', '_count'];

function parseValue(text: string, line: number): number {
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: not a sample value: ${text}`);
  return Number(text);
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  const pair = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`);
  while (i < text.length) {
    const m = pair.exec(text.slice(i));
    if (!m) throw new Error(`line ${line}: bad label at "${text.slice(i)}"`);
    if (m[1] in labels) throw new Error(`line ${line}: label ${m[1]} twice`);
    labels[m[1]] = m[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    i += m[0].length;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`line ${line}: expected , between labels`);
      i += 1;
    }
  }
  return labels;
}

export function parsePrometheusText(text: string): Exposition {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const out: Exposition = { types: new Map(), help: new Map(), samples: [] };
  const closed = new Set<string>();
  let current: string | undefined;
  const familyOf = (name: string) => {
    if (out.types.has(name)) return name;
    const suffix = SUFFIXES.find((s) => name.endsWith(s));
    const base = suffix ? name.slice(0, -suffix.length) : name;
    return out.types.has(base) ? base : name;
  };
  const enter = (family: string, line: number) => {
    if (family === current) return;
    if (closed.has(family)) throw new Error(`line ${line}: family ${family} continues after another family`);
    if (current) closed.add(current);
    current = family;
  };
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw === '' && index === text.split('\n').length - 1) return;
    if (raw.trim() === '') return;
    const meta = new RegExp(`^# (HELP|TYPE) (${NAME})(?: (.*))?$`).exec(raw);
    if (meta) {
      const [, kind, name, rest = ''] = meta;
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type ${rest}`);
        if (out.types.has(name)) throw new Error(`line ${line}: TYPE of ${name} twice`);
        if (out.samples.some((s) => familyOf(s.name) === name)) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        out.types.set(name, rest);
      } else {
        if (out.help.has(name)) throw new Error(`line ${line}: HELP of ${name} twice`);
        out.help.set(name, rest);
      }
      enter(name, line);
      return;
    }
    if (raw.startsWith('#')) return;
    const sample = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`).exec(raw);
    if (!sample) throw new Error(`line ${line}: not a sample: ${raw}`);
    const [, name, labelText, value] = sample;
    enter(familyOf(name), line);
    out.samples.push({ name, labels: labelText ? parseLabels(labelText, line) : {}, value: parseValue(value, line) });
  });
  return out;
}

/** The value of the one sample with this name and exactly these labels (undefined when there is none). */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = exposition.samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
