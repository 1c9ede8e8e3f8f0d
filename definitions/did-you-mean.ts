/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The closest candidate if it is close enough to be a likely typo, else undefined. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = candidate.toLowerCase() === lower ? 0 : levenshtein(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** `did you mean "x"?` for the closest candidate, or a short list of what is allowed. */
export function didYouMeanHint(word: string, candidates: readonly string[], what = 'known names'): string | undefined {
  const match = closestMatch(word, candidates);
  if (match) return `did you mean "${match}"?`;
  if (candidates.length === 0) return undefined;
  if (candidates.length <= 12) return `${what}: ${candidates.join(', ')}`;
  return undefined;
}
