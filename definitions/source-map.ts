import { isAlias, isCollection, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import { START_OF_FILE, type SourceRange } from './diagnostic';

/** The text of a scalar mapping key; a collection used as a key never matches a field name. */
export function keyText(pair: Pair<unknown, unknown>): string {
  const key = pair.key;
  if (isScalar(key)) return String(key.value);
  return key === null || key === undefined ? '' : '\u0000complex key';
}

/** Maps document paths (`['target_groups', 'us', 'live_url']`) to line/column ranges of the YAML source. */
export class SourceMap {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  rangeOfOffsets(start: number, end: number): SourceRange {
    const a = this.lines.linePos(start);
    const b = this.lines.linePos(Math.max(start, end));
    return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
  }

  private rangeOfNode(node: { range?: [number, number, number] | null } | null | undefined): SourceRange | undefined {
    if (!node?.range) return undefined;
    return this.rangeOfOffsets(node.range[0], node.range[1]);
  }

  /**
   * The range of the value at `docPath`, or of its key with `target: 'key'`. A mapping or list
   * value is shown at its key. A path that goes past the document stops at the nearest ancestor.
   */
  locate(docPath: readonly (string | number)[], target: 'value' | 'key' = 'value'): SourceRange {
    let node: unknown = this.doc.contents;
    let keyNode: Node | null = null;
    for (const seg of docPath) {
      if (isAlias(node)) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => keyText(p) === String(seg));
        if (!pair) break;
        keyNode = isScalar(pair.key) || isCollection(pair.key) ? (pair.key as Node) : null;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number' && seg >= 0 && seg < node.items.length) {
        keyNode = null;
        node = node.items[seg];
      } else {
        break;
      }
    }
    const keyRange = this.rangeOfNode(keyNode);
    if (target === 'key' && keyRange) return keyRange;
    if (isCollection(node) && keyRange) return keyRange;
    if (isCollection(node) && node.range) return this.rangeOfOffsets(node.range[0], node.range[0]);
    return this.rangeOfNode(node as Node | null) ?? keyRange ?? this.startOfContents();
  }

  private startOfContents(): SourceRange {
    const contents = this.doc.contents;
    if (contents?.range) return this.rangeOfOffsets(contents.range[0], contents.range[0]);
    return START_OF_FILE;
  }
}
