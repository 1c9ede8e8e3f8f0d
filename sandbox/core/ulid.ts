// ULIDs: 48 bits of milliseconds and 80 random bits in Crockford base32, 26 characters. The reference
// gives project, target group, exclusion group, webhook and job ids as ULIDs (`^[0-9A-Z]{26}$`).
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newUlid(nowMs: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i += 1) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i += 1) random += ALPHABET[bytes[i] % 32];
  return time + random;
}
