// The 32-bit FNV-1a hash of a string (over its UTF-16 code units): stable across machines, runs and replays, for
// ids and digests (never for secrets). Pure; imports nothing.

/** 32-bit FNV-1a of `text`, unsigned. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
