import type { FieldChange } from './types';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Whether the remote value holds what the desired value asks for. Objects compare on the desired
 * keys only (the API adds ids, counters and timestamps of its own); arrays element by element;
 * ISO instants by the moment they name; a textual id equals the same number.
 */
export function holdsDesired(desired: unknown, observed: unknown): boolean {
  if (desired === undefined) return true;
  if (desired === null) return observed === null || observed === undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(observed) || observed.length !== desired.length) return false;
    return desired.every((item, i) => holdsDesired(item, observed[i]));
  }
  if (typeof desired === 'object') {
    if (typeof observed !== 'object' || observed === null || Array.isArray(observed)) return false;
    const remote = observed as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) => holdsDesired(v, remote[k]));
  }
  // Identifiers are text in study files; an API may answer them as numbers.
  if (typeof desired === 'string' && typeof observed === 'number') return String(observed) === desired;
  if (typeof desired === 'string' && typeof observed === 'string' && ISO_INSTANT.test(desired) && ISO_INSTANT.test(observed)) {
    return Date.parse(desired) === Date.parse(observed);
  }
  return desired === observed;
}

/**
 * The top-level fields whose remote value does not hold the desired one, in the desired key order. With
 * `read`, only the fields the remote read carries are compared (a field it cannot show is not drift).
 */
export function fieldChanges(desired: Record<string, unknown>, observed: Record<string, unknown>, read?: readonly string[]): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, to] of Object.entries(desired)) {
    if (to === undefined || (read && !read.includes(field))) continue;
    if (!holdsDesired(to, observed[field])) changes.push({ field, from: observed[field] ?? null, to });
  }
  return changes;
}

/** A stable JSON text (sorted keys) for hashing and equality of plain data. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
