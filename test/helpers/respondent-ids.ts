// Synthetic respondent IDs for tests: UUIDs, the reference's format for RSIDs and ACCESS_RESPONDENT_GUIDs.
// `tag` keeps the sets of different tests apart (its hash is the first group); `i` is the last group, so
// the IDs of one set sort as their numbers do.
import { createHash } from 'node:crypto';

export function syntheticRsid(tag: string, i: number): string {
  const prefix = createHash('sha256').update(tag).digest('hex').slice(0, 8);
  return `${prefix}-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

export function syntheticRsids(tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => syntheticRsid(tag, i));
}
