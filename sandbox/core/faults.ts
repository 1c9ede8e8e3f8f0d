// Fault injection settings. `POST /_sandbox/faults` replaces them with defaults overlaid by the body.
import { badRequest, type InvalidParam } from './api-error';

export interface Faults {
  /** Delay added to every /v1 and token call, in ms. */
  latency_ms: number;
  /** Probability (0..1) of a 503 before any state change. */
  error_rate: number;
  /** Probability (0..1) of a 429 with Retry-After. */
  rate_limit_rate: number;
  /** Retry-After value sent with injected 429s, in seconds. */
  retry_after_seconds: number;
  /** Probability (0..1) that a committed write loses its response (socket destroyed). */
  drop_after_commit_rate: number;
  /** Lifetime of newly issued tokens, in seconds (spec: 86400). */
  token_ttl_seconds: number;
  /** Time an asynchronous job stays Processing, in ms. */
  job_duration_ms: number;
  /** Probability (0..1) that an otherwise valid job ends Failed. */
  job_failure_rate: number;
  /** Seed of the PRNG behind every rate above; setting it restarts the sequence. */
  seed: number;
}

export const DEFAULT_FAULTS: Readonly<Faults> = Object.freeze({
  latency_ms: 0,
  error_rate: 0,
  rate_limit_rate: 0,
  retry_after_seconds: 1,
  drop_after_commit_rate: 0,
  token_ttl_seconds: 86_400,
  job_duration_ms: 200,
  job_failure_rate: 0,
  seed: 1,
});

const RANGES: Record<keyof Faults, { min: number; max: number; integer: boolean }> = {
  latency_ms: { min: 0, max: 60_000, integer: true },
  error_rate: { min: 0, max: 1, integer: false },
  rate_limit_rate: { min: 0, max: 1, integer: false },
  retry_after_seconds: { min: 0, max: 3600, integer: true },
  drop_after_commit_rate: { min: 0, max: 1, integer: false },
  token_ttl_seconds: { min: 1, max: 86_400 * 30, integer: true },
  job_duration_ms: { min: 0, max: 3_600_000, integer: true },
  job_failure_rate: { min: 0, max: 1, integer: false },
  seed: { min: 0, max: 4_294_967_295, integer: true },
};

/** Validates a faults body (any subset of the keys) and returns defaults overlaid by it. Throws 400. */
export function parseFaults(input: unknown): Faults {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw badRequest('The faults body must be a JSON object.', [{ name: 'body', reason: 'must be an object' }]);
  }
  const problems: InvalidParam[] = [];
  const result: Faults = { ...DEFAULT_FAULTS };
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (!(key in RANGES)) {
      problems.push({ name: key, reason: 'unknown fault' });
      continue;
    }
    const range = RANGES[key as keyof Faults];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push({ name: key, reason: 'must be a number' });
    } else if (range.integer && !Number.isInteger(value)) {
      problems.push({ name: key, reason: 'must be an integer' });
    } else if (value < range.min || value > range.max) {
      problems.push({ name: key, reason: `must be between ${range.min} and ${range.max}` });
    } else {
      result[key as keyof Faults] = value;
    }
  }
  if (problems.length > 0) throw badRequest('Invalid faults.', problems);
  return result;
}
