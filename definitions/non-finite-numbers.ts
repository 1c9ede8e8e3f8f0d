// Numbers YAML reads but no field takes and JSON cannot carry: `.inf`, `-.inf`, `.nan`, and numbers too
// large for a double (`1e400` reads as infinity). JSON.stringify turns each into `null`, so without this
// check they reached the messages as "got null".
import { isMap, isScalar, isSeq, type Document } from 'yaml';
import type { DocPath } from './doc-path';
import { keyText } from './source-map';

export interface NonFiniteNumber {
  /** Path of the value where it is written (aliases are not followed: an anchored value is reported once). */
  path: DocPath;
  /** The value as the file writes it, e.g. `.inf` or `1e400`. */
  written: string;
  message: string;
}

export const isNonFiniteNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isFinite(value);

/** What a non-finite value is, in words: `not a number`, `infinity`, or a number too large to hold. */
export function describeNonFinite(value: number, written: string): string {
  if (Number.isNaN(value)) return `${written} is not a number`;
  if (/^[-+]?\.inf$/i.test(written)) return `${written} is ${value < 0 ? 'minus ' : ''}infinity`;
  return `${written} is too large to be held as a number (it reads as ${value < 0 ? 'minus ' : ''}infinity)`;
}

/** Every value of the document that YAML reads as a number that is not finite, in document order. */
export function findNonFiniteNumbers(doc: Document, text: string): NonFiniteNumber[] {
  const found: NonFiniteNumber[] = [];
  const walk = (node: unknown, at: DocPath) => {
    if (isMap(node)) {
      for (const pair of node.items) walk(pair.value, [...at, keyText(pair)]);
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...at, i]));
    } else if (isScalar(node) && isNonFiniteNumber(node.value)) {
      const written = node.range ? text.slice(node.range[0], node.range[1]) : String(node.value);
      found.push({ path: at, written, message: describeNonFinite(node.value, written) });
    }
  };
  walk(doc.contents, []);
  return found;
}
