// Read before create: a create is only sent when neither the known id nor the natural key finds the resource
// (or the caller has just observed that it does not exist), and it carries the caller's Idempotency-Key, so a lost answer never makes a duplicate.
import { ambiguousNaturalKeyFailure } from '../http/errors';
import type { ApiObject } from './types';

export interface EnsureSteps {
  /** The resource by the id the caller remembers, or undefined when it does not exist (404). */
  getById?: () => Promise<ApiObject | undefined>;
  /** Candidates matching the natural key (e.g. customer reference number). */
  findByNaturalKey?: () => Promise<ApiObject[]>;
  /** Re-reads a candidate found in a list (lists may omit fields). */
  getFull?: (id: string) => Promise<ApiObject | undefined>;
  /** POST with the Idempotency-Key. */
  create: () => Promise<ApiObject>;
  /** For messages, e.g. `project with project_customer_reference_number PO-1`. */
  describe: string;
  /**
   * The caller observed, just before, that the resource does not exist (the plan's reading of the API):
   * create at once, without looking again. A retried create sends the same Idempotency-Key, which makes the
   * API answer with the resource the first attempt made.
   */
  observedAbsent?: boolean;
}

export interface EnsureOutcome {
  resource: ApiObject;
  created: boolean;
}

export async function ensureResource(steps: EnsureSteps): Promise<EnsureOutcome> {
  if (steps.observedAbsent) return { resource: await steps.create(), created: true };
  if (steps.getById) {
    const found = await steps.getById();
    if (found) return { resource: found, created: false };
  }
  if (steps.findByNaturalKey) {
    const candidates = await steps.findByNaturalKey();
    if (candidates.length > 1) {
      throw ambiguousNaturalKeyFailure(steps.describe, candidates.map((c) => c.id));
    }
    if (candidates.length === 1) {
      const full = steps.getFull ? await steps.getFull(candidates[0].id) : candidates[0];
      if (full) return { resource: full, created: false };
    }
  }
  return { resource: await steps.create(), created: true };
}
