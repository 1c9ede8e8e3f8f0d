// Checks of activity inputs: a bad input is a programming error in the caller, reported as a non-retryable failure.
import { invalidInputFailure } from '../api/http/errors';
import { API_VERSIONS, type ActivityCtx } from './types';

/** Throws unless `ctx` names an account and a known API version. */
export function checkCtx(activity: string, ctx: ActivityCtx | undefined): ActivityCtx {
  if (!ctx || typeof ctx !== 'object') throw invalidInputFailure(activity, 'ctx is missing');
  if (typeof ctx.accountId !== 'string' || ctx.accountId.trim() === '') throw invalidInputFailure(activity, 'ctx.accountId is missing');
  if (!API_VERSIONS.includes(ctx.apiVersion)) {
    throw invalidInputFailure(activity, `ctx.apiVersion must be one of ${API_VERSIONS.join(', ')}`);
  }
  return ctx;
}

/** Throws unless `value` is a non-empty string (an id, key or reference). */
export function requireText(activity: string, name: string, value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') throw invalidInputFailure(activity, `${name} is missing`);
  return value;
}

/** Throws unless `value` is a plain object. */
export function requireObject(activity: string, name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInputFailure(activity, `${name} must be an object`);
  return value as Record<string, unknown>;
}

/** Throws unless `value` is an array. */
export function requireArray(activity: string, name: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw invalidInputFailure(activity, `${name} must be an array`);
  return value;
}
