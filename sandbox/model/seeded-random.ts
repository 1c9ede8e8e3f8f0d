// Deterministic pseudo-random numbers: the same seed gives the same sequence on every machine.

/** 32-bit FNV-1a hash of a string. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A uniform number in [0, 1) derived only from its key parts (no sequence state). */
export function unitHash(...parts: (string | number)[]): number {
  return mix32(hashString(parts.join('\u241f'))) / 4294967296;
}

function mix32(value: number): number {
  let z = (value + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
