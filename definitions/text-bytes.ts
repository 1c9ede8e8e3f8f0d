// Study files and ID list files are text: UTF-8 without control characters. These helpers find the
// first byte that is not UTF-8 and the first character that is not printable text, with its position.

/**
 * Characters that are not text in a study or ID list file: the C0 controls other than tab, line
 * feed and carriage return, DEL, the C1 controls other than NEL (U+0085), and the non-characters
 * U+FFFE and U+FFFF. These are the characters YAML 1.2 leaves out of its printable set.
 */
export const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/** Offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629), or -1. */
export function utf8ErrorOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    const follow = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (follow < 0 || i + follow >= bytes.length) return i;
    for (let k = 1; k <= follow; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    const second = bytes[i + 1];
    // Overlong forms, UTF-16 surrogates and code points above U+10FFFF.
    if ((c === 0xe0 && second < 0xa0) || (c === 0xed && second > 0x9f) || (c === 0xf0 && second < 0x90) || (c === 0xf4 && second > 0x8f)) return i;
    i += follow + 1;
  }
  return -1;
}

/**
 * 1-based line and column (in UTF-16 code units, as editors count) of a byte offset; the bytes before it must be
 * UTF-8. Lines end as YAML 1.2 ends them: `\n`, `\r\n` or a lone `\r`.
 */
export function positionOfByte(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a || (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = Buffer.from(bytes.buffer, bytes.byteOffset + lineStart, offset - lineStart).toString('utf8').length + 1;
  return { line, column };
}

/** A readable name of a character that is not text, e.g. `U+0000 (NUL)`. */
export function describeCharacter(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const names: Record<number, string> = { 0: 'NUL', 0x0d: 'carriage return', 0x1b: 'ESC', 0x7f: 'DEL', 0xfeff: 'byte order mark' };
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return names[code] ? `${hex} (${names[code]})` : hex;
}
