// The boundary check: every answer the client reads is parsed with the operation's wire schema
// (written from the published reference). An answer of another shape is a named, non-retryable failure
// that says which operation answered what; it never becomes an empty list or an undefined id.
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';

/** Failure `type` of an answer whose shape is not the reference's. Non-retryable. */
export const WIRE_MISMATCH = 'wire_mismatch';

/** What the check needs to know about the call. */
export interface WireCall {
  /** The reference's operation id, e.g. `list_account_projects`. */
  operation: string;
  method: string;
  /** Path without query. */
  path: string;
}

/** `details[0]` of a wire-mismatch failure. */
export interface WireMismatchDetails {
  operation: string;
  method: string;
  path: string;
  status: number;
  /** The shape the server answered (keys and value types, never values). */
  answered: string;
  /** What the reference's schema expected and did not find. */
  problems: string[];
}

/** Parses `body` with `schema`; throws a {@link WIRE_MISMATCH} failure naming the operation when it does not fit. */
export function readAnswer<S extends z.ZodType>(call: WireCall, schema: S, answer: { status: number; body: unknown }): z.output<S> {
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`);
  throw wireMismatchFailure(call, answer.status, describeShape(answer.body), problems);
}

/** A {@link WIRE_MISMATCH} failure for a check done by hand (e.g. a status the reference does not give). */
export function wireMismatchFailure(call: WireCall, status: number, answered: string, problems: string[]): ApplicationFailure {
  const details: WireMismatchDetails = { operation: call.operation, method: call.method, path: call.path, status, answered, problems };
  return ApplicationFailure.create({
    message: `Demand API ${call.operation} (${call.method} ${call.path}) answered ${status} with ${answered}, not the reference's shape: ${problems.join('; ')}`,
    type: WIRE_MISMATCH,
    nonRetryable: true,
    details: [details],
  });
}

/**
 * The shape of a JSON value without its values (bodies may carry secrets or respondent IDs):
 * `{projects: array(3) of object, has_more: boolean}`. Depth- and width-limited.
 */
export function describeShape(value: unknown, depth = 0): string {
  if (value === null) return 'null';
  if (value === undefined) return 'no body';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'array(0)';
    return depth >= 2 ? `array(${value.length})` : `array(${value.length}) of ${describeShape(value[0], depth + 1)}`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (depth >= 2) return `object(${keys.length} keys)`;
    const shown = keys.slice(0, 8).map((k) => `${k}: ${describeShape((value as Record<string, unknown>)[k], depth + 1)}`);
    return `{${shown.join(', ')}${keys.length > 8 ? `, … ${keys.length - 8} more` : ''}}`;
  }
  return typeof value;
}
