// The canonical form of an ID list: unique IDs in code-unit order, each followed by "\n"; digested with SHA-256.
// The blob store writes exactly this form, and listExcludedIds digests the remote list the same way, so equal
// sets give equal digests.
import { createHash } from 'node:crypto';

/** Sorts (code-unit order) a list of unique IDs in place and returns it. */
export function sortIds(ids: string[]): string[] {
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Digest and byte size of the canonical form of `ids`, which must already be unique and sorted. */
export function digestSortedIds(ids: readonly string[]): { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  let bytes = 0;
  const batch: string[] = [];
  let batchChars = 0;
  const flush = () => {
    const chunk = Buffer.from(batch.join(''), 'utf8');
    hash.update(chunk);
    bytes += chunk.length;
    batch.length = 0;
    batchChars = 0;
  };
  for (const id of ids) {
    batch.push(id, '\n');
    batchChars += id.length + 1;
    if (batchChars >= 64 * 1024) flush();
  }
  flush();
  return { sha256: hash.digest('hex'), bytes };
}

/** The count and digest of a list of unique IDs in its canonical form (sorts `ids` in place); never the IDs. */
export function listDigest(ids: string[]): { count: number; sha256: string } {
  const sorted = sortIds(ids);
  return { count: sorted.length, sha256: digestSortedIds(sorted).sha256 };
}
