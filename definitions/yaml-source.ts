import { Alias, isAlias, isCollection, isMap, isPair, isScalar, isSeq, Lexer, LineCounter, parseDocument, Parser, visit, type Document, type Node, type YAMLError } from 'yaml';
import { makeDiagnostic, START_OF_FILE, type Diagnostic } from './diagnostic';
import { isPlainObject } from './doc-path';
import { SourceMap } from './source-map';
import { describeCharacter, NOT_TEXT, positionOfByte, utf8ErrorOffset } from './text-bytes';

/** A parsed YAML file: the document (for ranges and text edits), its source map and its plain data. */
export interface ParsedYaml {
  file: string;
  doc: Document;
  map: SourceMap;
  data: Record<string, unknown>;
}

/** Deepest nesting of mappings and lists, aliases expanded (SF1008). Study files need about ten levels. */
export const MAX_NESTING_DEPTH = 64;
/**
 * Most keys and values a file may stand for once every alias (and `<<` merge) is replaced by what it
 * names (SF1009), so that a few lines of aliases cannot make the checks walk billions of values.
 */
export const MAX_EXPANDED_VALUES = 1_000_000;
/**
 * The yaml package's alias guard (`maxAliasCount`): the uses of one anchor, multiplied by the alias
 * uses inside what it names, at most this (SF1009). 100 target groups that each merge `<<: *defaults`
 * count 101; the yaml package's own default of 100 refused them.
 */
export const MAX_ALIAS_COUNT = 100_000;

const MESSAGES: Record<string, string> = {
  DUPLICATE_KEY: 'duplicate key: a key may appear only once in a mapping',
  MULTIPLE_DOCS: 'a study file holds one YAML document; remove the extra `---`',
};
const LIMITS_HINT = 'see "Files, directories and editors" in docs/study-format.md for the limits';

/**
 * The text of a study or shared file's bytes: UTF-8, as YAML 1.2 requires. Bytes that are not UTF-8
 * are SF1007 at their line and column (they would reach the API as U+FFFD otherwise).
 */
export function decodeYamlBytes(bytes: Uint8Array, file: string): { text?: string; diagnostics: Diagnostic[] } {
  const bad = utf8ErrorOffset(bytes);
  if (bad === -1) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), diagnostics: [] };
  const { line, column } = positionOfByte(bytes, bad);
  const byte = `0x${bytes[bad].toString(16).padStart(2, '0')}`;
  return {
    diagnostics: [
      makeDiagnostic('SF1007', file, { line, column, endLine: line, endColumn: column + 1 }, [], `the file is not UTF-8 text: byte ${byte} on line ${line} is not UTF-8`, 'save the file as UTF-8: YAML 1.2 files are UTF-8 text'),
    ],
  };
}

/** The first character of the source that YAML 1.2 does not allow (a NUL, another control character), with how many there are. */
function controlCharacters(text: string, map: (offset: number) => { line: number; col: number }, file: string): Diagnostic | undefined {
  const first = NOT_TEXT.exec(text);
  if (!first) return undefined;
  const all = text.match(new RegExp(NOT_TEXT.source, 'g'))?.length ?? 1;
  const at = map(first.index);
  const more = all > 1 ? ` (${all} in the file)` : '';
  return makeDiagnostic(
    'SF1007',
    file,
    { line: at.line, column: at.col, endLine: at.line, endColumn: at.col + 1 },
    [],
    `the file is not text: it holds the control character ${describeCharacter(first[0])}${more}`,
    'YAML 1.2 files are printable text: remove it, and write a tab or a line break as such',
  );
}

/**
 * Where the first mapping or list nested deeper than MAX_NESTING_DEPTH starts, found with the yaml
 * package's parser (which keeps its own stack) before the document is built (its composer recurses,
 * and runs out of call stack some hundreds of levels down).
 */
function tooDeepAt(text: string): { line: number; col: number } | undefined {
  const lines = new LineCounter();
  lines.addNewLine(0);
  const parser = new Parser(lines.addNewLine);
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) void token;
    let depth = 0;
    for (const token of parser.stack) {
      if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
        depth++;
        if (depth > MAX_NESTING_DEPTH) return lines.linePos(token.offset);
      }
    }
  }
  return undefined;
}

/** What each alias names: the last node with its anchor before it, in document order (as the yaml package resolves it), or undefined. */
function aliasTargets(doc: Document): Map<Alias, Node | undefined> {
  const latest = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) targets.set(node, latest.get(node.source));
      else if (node.anchor) latest.set(node.anchor, node);
    },
  });
  return targets;
}

interface Expansion {
  /** Keys and values the node stands for, aliases expanded. */
  values: number;
  /** Levels of mappings and lists, aliases expanded. */
  depth: number;
}

/**
 * Walks the document in order and measures what every alias expands to: the first alias that makes
 * the file stand for more than MAX_EXPANDED_VALUES values, nest deeper than MAX_NESTING_DEPTH, or
 * name the node that holds it (an endless structure) is reported there. Linear: each node is
 * measured once.
 */
function checkAliases(doc: Document, targets: Map<Alias, Node | undefined>, map: SourceMap, file: string): Diagnostic | undefined {
  const measured = new Map<unknown, Expansion>();
  const open = new Set<unknown>();
  let total = 0;
  let problem: Diagnostic | undefined;
  const report = (node: Node, message: string) => {
    const range = node.range ? map.rangeOfOffsets(node.range[0], node.range[1]) : START_OF_FILE;
    problem = makeDiagnostic('SF1009', file, range, [], message, LIMITS_HINT);
  };

  const measure = (node: unknown, level: number): Expansion => {
    if (problem) return { values: 0, depth: 0 };
    if (isAlias(node)) {
      const target = targets.get(node);
      if (!target) return { values: 1, depth: 0 };
      if (open.has(target)) {
        report(node, `alias *${node.source} names a node that holds it: it would expand without end`);
        return { values: 0, depth: 0 };
      }
      const expansion = measured.get(target) ?? measure(target, level);
      total += expansion.values;
      if (total > MAX_EXPANDED_VALUES) {
        report(node, `alias *${node.source} expands the file past ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} keys and values (it stands for ${expansion.values.toLocaleString('en-US')})`);
      } else if (level + expansion.depth > MAX_NESTING_DEPTH) {
        report(node, `alias *${node.source} nests the file deeper than ${MAX_NESTING_DEPTH} levels of mappings and lists`);
      }
      return expansion;
    }
    if (isPair(node)) {
      const key = measure(node.key, level);
      const value = measure(node.value, level);
      return { values: key.values + value.values, depth: Math.max(key.depth, value.depth) };
    }
    if (isCollection(node)) {
      total++;
      open.add(node);
      let values = 1;
      let depth = 0;
      for (const item of node.items) {
        const inner = measure(item, level + 1);
        values += inner.values;
        depth = Math.max(depth, inner.depth);
        if (problem) break;
      }
      open.delete(node);
      const expansion = { values, depth: depth + 1 };
      measured.set(node, expansion);
      return expansion;
    }
    if (node === null || node === undefined) return { values: 0, depth: 0 };
    total++;
    if (total > MAX_EXPANDED_VALUES) report(node as Node, `the file holds more than ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} keys and values`);
    const expansion = { values: 1, depth: 0 };
    measured.set(node, expansion);
    return expansion;
  };
  measure(doc.contents, 0);
  return problem;
}

/** A NUL or another control character written as an escape (`"\0"`, `"\x1b"`) in a key or value. */
function escapedControlCharacter(doc: Document, map: SourceMap, file: string): Diagnostic | undefined {
  let found: Diagnostic | undefined;
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return undefined;
      const ch = NOT_TEXT.exec(node.value);
      if (!ch) return undefined;
      const range = node.range ? map.rangeOfOffsets(node.range[0], node.range[1]) : START_OF_FILE;
      found = makeDiagnostic('SF1007', file, range, [], `the value holds the control character ${describeCharacter(ch[0])}`, 'values are printable text; the API would receive the character as is');
      return visit.BREAK;
    },
  });
  return found;
}

/** Runs toJS with the yaml package's alias guard; an alias it refuses is named by where it stands. */
function toData(doc: Document, map: SourceMap, file: string): { data?: unknown; diagnostic?: Diagnostic } {
  // The alias being resolved when yaml gives up: every alias of the document reports itself.
  let failedAt: Alias | undefined;
  visit(doc, {
    Alias(_key, node) {
      const resolve = Alias.prototype.resolve;
      node.resolve = (...args: Parameters<Alias['resolve']>) => {
        try {
          return resolve.apply(node, args);
        } catch (err) {
          // The innermost alias that fails names itself first.
          failedAt ??= node;
          throw err;
        }
      };
    },
  });
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const range = failedAt?.range ? map.rangeOfOffsets(failedAt.range[0], failedAt.range[1]) : map.locate([]);
    if (/Excessive alias count/.test(reason) && failedAt) {
      const message = `alias *${failedAt.source} passes the alias limit: the uses of an anchor, times the aliases inside it, may come to ${MAX_ALIAS_COUNT.toLocaleString('en-US')}`;
      return { diagnostic: makeDiagnostic('SF1009', file, range, [], message, LIMITS_HINT) };
    }
    return { diagnostic: makeDiagnostic('SF1002', file, range, [], `YAML cannot be loaded: ${reason}`) };
  } finally {
    visit(doc, {
      Alias(_key, node) {
        delete (node as { resolve?: unknown }).resolve;
      },
    });
  }
}

/**
 * The text with every lone carriage return made a line feed. YAML 1.2 ends lines with `\n`, `\r\n` or a lone
 * `\r` (old Mac files); the yaml package knows only the first two. One character for one, so every offset, line
 * and column stays what it was in the file.
 */
export function normalizeLineBreaks(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

/**
 * A quoted value that is never closed runs on, across lines, to wherever the yaml package gives up, and that
 * is where it reports it; the diagnostic belongs where the quote opens. The quoted scalar that ends where
 * the error stands, or undefined.
 */
function unclosedQuote(doc: Document, err: YAMLError): { start: number; quote: string } | undefined {
  if (err.code !== 'MISSING_CHAR' || !/^Missing closing .quote/.test(err.message)) return undefined;
  let found: { start: number; quote: string } | undefined;
  visit(doc, {
    Scalar(_key, node) {
      if ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && node.range?.[1] === err.pos[0]) {
        found = { start: node.range[0], quote: node.type === 'QUOTE_DOUBLE' ? '"' : "'" };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

const isMergeKey = (key: unknown) => isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';

function nodeKind(node: unknown): string {
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'an empty value' : 'a single value';
  return 'nothing';
}

/**
 * A `<<` merge key whose value is not a mapping, an alias of one, or a list of those (the yaml package throws
 * while it builds the data, without saying where): at the `<<`. An empty list merges nothing, as yaml has it.
 */
function badMerge(doc: Document, targets: Map<Alias, Node | undefined>, map: SourceMap, file: string): Diagnostic | undefined {
  let found: Diagnostic | undefined;
  const resolved = (node: unknown) => (isAlias(node) ? targets.get(node) : node);
  visit(doc, {
    Pair(_key, pair) {
      if (!isMergeKey(pair.key)) return undefined;
      const value = pair.value;
      const given = isAlias(value) ? `*${value.source} names` : 'it is given';
      const list = resolved(value);
      let what: string | undefined;
      if (isSeq(list)) {
        const i = list.items.findIndex((item) => !isMap(resolved(item)));
        const item = list.items[i];
        if (i !== -1) what = `${given} a list whose item ${i + 1} ${isAlias(item) ? `(*${item.source}) is` : 'is'} ${nodeKind(resolved(item))}`;
      } else if (!isMap(list)) {
        what = `${given} ${nodeKind(list)}`;
      }
      if (what === undefined) return undefined;
      const key = pair.key as Node;
      const range = key.range ? map.rangeOfOffsets(key.range[0], key.range[1]) : START_OF_FILE;
      found = makeDiagnostic('SF1002', file, range, [], `\`<<\` merges mappings into this one, but ${what}, not a mapping`, 'merge an alias of a mapping, such as `<<: *defaults` where `defaults: &defaults` holds fields, or a list of such aliases');
      return visit.BREAK;
    },
  });
  return found;
}

/** Parses YAML text; every syntax problem becomes a located diagnostic instead of an exception. */
export function parseYamlText(source: string, file: string): { parsed?: ParsedYaml; diagnostics: Diagnostic[] } {
  const text = normalizeLineBreaks(source);
  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const at = tooDeepAt(text);
  if (at) {
    return {
      diagnostics: [
        makeDiagnostic('SF1008', file, { line: at.line, column: at.col, endLine: at.line, endColumn: at.col + 1 }, [], `this mapping or list is nested ${MAX_NESTING_DEPTH + 1} levels deep; at most ${MAX_NESTING_DEPTH} are allowed`, LIMITS_HINT),
      ],
    };
  }
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { diagnostics: [makeDiagnostic('SF1002', file, START_OF_FILE, [], `YAML cannot be read: ${reason}`)] };
  }
  const map = new SourceMap(doc, lineCounter);
  const control = controlCharacters(text, (offset) => lineCounter.linePos(offset), file);
  if (control) diagnostics.push(control);
  for (const err of doc.errors) {
    const code = err.code === 'DUPLICATE_KEY' ? 'SF1003' : err.code === 'MULTIPLE_DOCS' ? 'SF1005' : 'SF1002';
    const open = unclosedQuote(doc, err);
    if (open) {
      const range = map.rangeOfOffsets(open.start, open.start + 1);
      const gaveUp = lineCounter.linePos(err.pos[0]).line;
      const ranOn = gaveUp > range.line ? ` (the value runs on to line ${gaveUp})` : '';
      diagnostics.push(
        makeDiagnostic(code, file, range, [], `YAML syntax error: the ${open.quote} quote that opens here is never closed${ranOn}`, `end the value with ${open.quote}, or remove the opening ${open.quote}`),
      );
      continue;
    }
    const message = MESSAGES[err.code] ?? `YAML syntax error: ${err.message.split('\n')[0]}`;
    diagnostics.push(makeDiagnostic(code, file, map.rangeOfOffsets(err.pos[0], err.pos[1]), [], message));
  }
  for (const warning of doc.warnings) {
    diagnostics.push(
      makeDiagnostic('SF1006', file, map.rangeOfOffsets(warning.pos[0], warning.pos[1]), [], `YAML warning: ${warning.message.split('\n')[0]}`),
    );
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const targets = aliasTargets(doc);
  const expansion = unresolvedAlias(targets, map, file) ?? badMerge(doc, targets, map, file) ?? checkAliases(doc, targets, map, file);
  if (expansion) return { diagnostics: [...diagnostics, expansion] };
  const escaped = escapedControlCharacter(doc, map, file);
  if (escaped) return { diagnostics: [...diagnostics, escaped] };
  const { data, diagnostic } = toData(doc, map, file);
  if (diagnostic) return { diagnostics: [...diagnostics, diagnostic] };
  if (!isPlainObject(data)) {
    const what = data === null || data === undefined ? 'empty' : Array.isArray(data) ? 'a list' : 'a single value';
    diagnostics.push(
      makeDiagnostic('SF1004', file, map.locate([]), [], `the file is ${what}; it must be a mapping that starts with \`format: studyflow/v1\``),
    );
    return { diagnostics };
  }
  return { parsed: { file, doc, map, data }, diagnostics };
}

/** An alias whose anchor is not set before it, at the alias. */
function unresolvedAlias(targets: Map<Alias, Node | undefined>, map: SourceMap, file: string): Diagnostic | undefined {
  for (const [alias, target] of targets) {
    if (target) continue;
    const range = alias.range ? map.rangeOfOffsets(alias.range[0], alias.range[1]) : START_OF_FILE;
    return makeDiagnostic('SF1002', file, range, [], `alias *${alias.source} names no anchor: set \`&${alias.source}\` on a node before it`);
  }
  return undefined;
}
