// The request side of the boundary: a body the reference would refuse is not sent. The activity's input
// was wrong (a caller's bug, or a study the validator let through), so the failure is non-retryable
// `invalid_activity_input`, naming the operation and the fields.
import type { z } from 'zod';
import { invalidInputFailure } from '../http/errors';

/** `body` parsed with the operation's request schema, or a non-retryable invalid-input failure. */
export function requestBody<S extends z.ZodType>(activity: string, operation: string, schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`);
  throw invalidInputFailure(activity, `the ${operation} body the reference would refuse: ${problems.join('; ')}`);
}
