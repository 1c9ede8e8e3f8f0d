// Reads a JSON object field by field, collecting every problem as `{name, reason}` (name is the full
// path, e.g. `respondent_activity_exclusions[2].duration`). Nothing is thrown until `finish()`, so a
// client sees all problems at once and handlers validate fully before mutating anything.
import { badRequest, type InvalidParam } from './api-error';

interface FieldOptions {
  required?: boolean;
  nullable?: boolean;
}

export class ObjectReader {
  readonly value: Record<string, unknown>;
  readonly path: string;
  readonly problems: InvalidParam[];

  private constructor(value: Record<string, unknown>, path: string, problems: InvalidParam[]) {
    this.value = value;
    this.path = path;
    this.problems = problems;
  }

  /** Starts reading a request body; a non-object body is a 400 right away. */
  static body(body: unknown): ObjectReader {
    if (!isPlainObject(body)) throw badRequest('The request body must be a JSON object.', [{ name: 'body', reason: 'must be a JSON object' }]);
    return new ObjectReader(body, '', []);
  }

  /** Reads a nested value as an object (records a problem and returns null when it is not one). */
  static nested(value: unknown, path: string, problems: InvalidParam[]): ObjectReader | null {
    if (!isPlainObject(value)) {
      problems.push({ name: path, reason: 'must be an object' });
      return null;
    }
    return new ObjectReader(value, path, problems);
  }

  name(field: string): string {
    return this.path ? `${this.path}.${field}` : field;
  }

  has(field: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.value, field);
  }

  fail(field: string, reason: string): void {
    this.problems.push({ name: this.name(field), reason });
  }

  /** Shared presence/null handling; returns `skip` when the caller should not look further. */
  private presence(field: string, opts: FieldOptions): 'absent' | 'null' | 'present' | 'skip' {
    if (!this.has(field) || this.value[field] === undefined) {
      if (opts.required) {
        this.fail(field, 'is required');
        return 'skip';
      }
      return 'absent';
    }
    if (this.value[field] === null) {
      if (!opts.nullable) {
        this.fail(field, 'must not be null');
        return 'skip';
      }
      return 'null';
    }
    return 'present';
  }

  string(field: string, opts: FieldOptions & { maxLength?: number; minLength?: number; pattern?: RegExp; patternReason?: string } = {}): string | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    const v = this.value[field];
    if (typeof v !== 'string') return void this.fail(field, 'must be a string');
    const min = opts.minLength ?? 1;
    if (v.length < min) return void this.fail(field, min === 1 ? 'must not be empty' : `must have at least ${min} characters`);
    if (opts.maxLength !== undefined && v.length > opts.maxLength) return void this.fail(field, `must have at most ${opts.maxLength} characters`);
    if (opts.pattern && !opts.pattern.test(v)) return void this.fail(field, opts.patternReason ?? `must match ${opts.pattern}`);
    return v;
  }

  integer(field: string, opts: FieldOptions & { min?: number; max?: number; allowNumericString?: boolean } = {}): number | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    let v = this.value[field];
    if (opts.allowNumericString && typeof v === 'string' && /^[0-9]{1,15}$/.test(v)) v = Number(v);
    if (typeof v !== 'number' || !Number.isInteger(v)) return void this.fail(field, 'must be an integer');
    return this.range(field, v, opts.min, opts.max);
  }

  number(field: string, opts: FieldOptions & { min?: number; max?: number; exclusiveMin?: number } = {}): number | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    const v = this.value[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) return void this.fail(field, 'must be a number');
    if (opts.exclusiveMin !== undefined && v <= opts.exclusiveMin) return void this.fail(field, `must be greater than ${opts.exclusiveMin}`);
    return this.range(field, v, opts.min, opts.max);
  }

  boolean(field: string, opts: FieldOptions = {}): boolean | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    const v = this.value[field];
    if (typeof v !== 'boolean') return void this.fail(field, 'must be a boolean');
    return v;
  }

  oneOf<T extends string>(field: string, values: readonly T[], opts: FieldOptions = {}): T | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    const v = this.value[field];
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
      return void this.fail(field, `must be one of ${values.join(', ')}`);
    }
    return v as T;
  }

  array(field: string, opts: FieldOptions & { maxItems?: number; minItems?: number } = {}): unknown[] | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    const v = this.value[field];
    if (!Array.isArray(v)) return void this.fail(field, 'must be an array');
    if (opts.minItems !== undefined && v.length < opts.minItems) return void this.fail(field, `must have at least ${opts.minItems} item(s)`);
    if (opts.maxItems !== undefined && v.length > opts.maxItems) return void this.fail(field, `must have at most ${opts.maxItems} items`);
    return v;
  }

  object(field: string, opts: FieldOptions = {}): ObjectReader | null | undefined {
    const p = this.presence(field, opts);
    if (p === 'absent' || p === 'skip') return undefined;
    if (p === 'null') return null;
    return ObjectReader.nested(this.value[field], this.name(field), this.problems) ?? undefined;
  }

  /** Records every key not in `allowed`; `explain` may give a specific reason for a key (renamed fields). */
  rejectUnknown(allowed: readonly string[], explain: Record<string, string> = {}): void {
    for (const key of Object.keys(this.value)) {
      if (allowed.includes(key)) continue;
      this.fail(key, explain[key] ?? 'is not a known field');
    }
  }

  private range(field: string, v: number, min?: number, max?: number): number | undefined {
    if (min !== undefined && v < min) return void this.fail(field, `must be at least ${min}`);
    if (max !== undefined && v > max) return void this.fail(field, `must be at most ${max}`);
    return v;
  }

  /** Throws 400 bad_request with every collected problem. */
  finish(detail = 'The request is invalid.'): void {
    if (this.problems.length > 0) throw badRequest(detail, this.problems);
  }
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Absolute http(s) URL check used for live_url/test_url. */
export const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** ISO-8601 timestamp with a date, time and zone (Z or ±hh:mm). */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
