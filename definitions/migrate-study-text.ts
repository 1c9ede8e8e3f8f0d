import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { pathKey } from './doc-path';
import { CURRENT_API_VERSION } from '../shared/api-version';
import { findLegacyNames, keyScalar, OPEN_ENDED_VALUES, type LegacyName } from './legacy-names';
import { keyText } from './source-map';
import { migrateWebhookEvents } from './migrate-webhook-events';
import { DEFAULT_API_PROFILE, type ApiProfileName } from '../shared/api-profile';

/** One rewritten name: the 1-based line (in the input text) of the old key or value, and the old and new names. */
export interface MigrationChange {
  line: number;
  from: string;
  /** `(removed)` for a field the API assigns. */
  to: string;
  /** Why, for a removed field. */
  note?: string;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface PassChange {
  path: string;
  line: number;
  from: string;
  to: string;
  note?: string;
}

/** What a removed field becomes in the list of changes. */
export const REMOVED = '(removed)';

const MAX_PASSES = 8;

/** The document, or undefined when the text has YAML errors (or the parser gives up on it). */
function parseClean(text: string, lineCounter: LineCounter): Document | undefined {
  try {
    const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true });
    return doc.errors.length > 0 ? undefined : doc;
  } catch {
    return undefined;
  }
}

function siblingPair(map: YAMLMap, key: string, except: Pair): Pair | undefined {
  return map.items.find((p) => p !== except && keyText(p) === key);
}

function quoted(source: string, name: string): string {
  const q = source[0];
  return q === '"' || q === "'" ? `${q}${name}${q}` : name;
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;

/** Offset just past the newline that ends the last non-blank character before `end`. */
function endOfLastLine(text: string, end: number): number {
  let i = Math.min(end, text.length) - 1;
  while (i >= 0 && /\s/.test(text[i])) i--;
  const nl = text.indexOf('\n', i + 1);
  return nl === -1 ? text.length : nl + 1;
}

function nonBlankLineStartsWithin(text: string, start: number, end: number): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf('\n', start); i !== -1 && i + 1 < end; i = text.indexOf('\n', i + 1)) {
    const lineEnd = text.indexOf('\n', i + 1);
    if (text.slice(i + 1, lineEnd === -1 ? text.length : lineEnd).trim() !== '') starts.push(i + 1);
  }
  return starts;
}

function applyEdits(text: string, edits: Edit[], base = 0): string {
  // From the end; at one offset a replacement goes first so an insertion there lands in front of it.
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - b.start - (a.end - a.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start - base) + e.text + out.slice(e.end - base);
  return out;
}

/** Turns `index: {mapping}` into a one-item `conditions` list. */
function wrapMappingInList(text: string, value: YAMLMap, edits: Edit[]): void {
  const [start, end] = value.range!;
  if (value.flow) {
    edits.push({ start, end: start, text: '[' }, { start: end, end, text: ']' });
    return;
  }
  edits.push({ start, end: start, text: '- ' });
  for (const at of nonBlankLineStartsWithin(text, start, end)) edits.push({ start: at, end: at, text: '  ' });
}

/** Edits that add `object: blended` to every entry of an old interlocked_profiles list. */
function blendedMarkers(text: string, lines: LineCounter, seq: YAMLSeq): Edit[] {
  const edits: Edit[] = [];
  for (const item of seq.items) {
    if (!isMap(item) || !item.range || item.items.some((p) => keyText(p) === 'object')) continue;
    const start = item.range[0];
    if (item.flow) edits.push({ start: start + 1, end: start + 1, text: text[start + 1] === ' ' ? ' object: blended,' : 'object: blended, ' });
    else edits.push({ start, end: start, text: `object: blended\n${' '.repeat(lines.linePos(start).col - 1)}` });
  }
  return edits;
}

/**
 * Removes a `key: value` pair of a block mapping, with the lines of a block value; false when the pair does
 * not start a line of its own (or a scalar value is not on the key's line).
 */
function removePairLine(text: string, pair: Pair, edits: Edit[]): boolean {
  const key = keyScalar(pair);
  const value = pair.value as Node | null;
  if (!key?.range || !value?.range || !(isScalar(value) || isMap(value) || isSeq(value))) return false;
  const start = lineStart(text, key.range[0]);
  if (text.slice(start, key.range[0]).trim() !== '' || (isScalar(value) && text.slice(key.range[1], value.range[0]).includes('\n'))) return false;
  edits.push({ start, end: endOfLastLine(text, value.range[1]), text: '' });
  return true;
}

/** Moves the entries of `interlocked_profiles` to the end of the `profiles` list beside it, marked blended. */
function moveIntoProfiles(text: string, lines: LineCounter, name: LegacyName, profiles: Pair, edits: Edit[]): boolean {
  const src = name.pair.value;
  const dst = profiles.value;
  const key = keyScalar(name.pair);
  if (!key?.range || !isSeq(src) || !isSeq(dst) || src.flow || dst.flow || !src.range || !dst.range || src.items.length === 0) return false;
  const removeStart = lineStart(text, key.range[0]);
  if (text.slice(removeStart, key.range[0]).trim() !== '') return false;
  const removeEnd = endOfLastLine(text, src.range[1]);
  const itemsStart = lineStart(text, src.range[0]);
  const delta = lines.linePos(dst.range[0]).col - lines.linePos(src.range[0]).col;
  const marked = applyEdits(text.slice(itemsStart, removeEnd), blendedMarkers(text, lines, src), itemsStart);
  const moved = marked
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      if (delta >= 0) return ' '.repeat(delta) + line;
      const strip = Math.min(-delta, line.length - line.trimStart().length);
      return line.slice(strip);
    })
    .join('\n');
  const insertAt = endOfLastLine(text, dst.range[1]);
  if (insertAt < removeEnd && insertAt > removeStart) return false;
  const needsNewline = insertAt === text.length && !text.endsWith('\n');
  edits.push({ start: removeStart, end: removeEnd, text: '' }, { start: insertAt, end: insertAt, text: (needsNewline ? '\n' : '') + moved });
  return true;
}

/** Whether a `profiles` list (or a target group's `profile_templates`) with entries appears anywhere in the file. */
function declaresProfiles(node: unknown): boolean {
  if (isMap(node)) return node.items.some((p) => ((keyText(p) === 'profiles' || keyText(p) === 'interlocked_profiles') && isSeq(p.value) && p.value.items.length > 0) || declaresProfiles(p.value));
  if (isSeq(node)) return node.items.some(declaresProfiles);
  return false;
}

/**
 * `allow_all_values: false` beside the `open_ended_values` of each condition renamed earlier (the listed answers
 * never meant every answer). It adds lines, so it runs once every rename and removal is done.
 */
function allowAllValuesEdits(doc: Document, lines: LineCounter, openEnded: ReadonlySet<string>): Edit[] {
  const edits: Edit[] = [];
  const walk = (node: unknown, at: (string | number)[]) => {
    if (isMap(node)) {
      const values = node.items.find((p) => keyText(p) === OPEN_ENDED_VALUES);
      const key = values ? keyScalar(values) : undefined;
      if (key?.range && openEnded.has(pathKey(at)) && !node.items.some((p) => keyText(p) === 'allow_all_values')) {
        const indent = ' '.repeat(lines.linePos(key.range[0]).col - 1);
        edits.push({ start: key.range[0], end: key.range[0], text: node.flow ? 'allow_all_values: false, ' : `allow_all_values: false\n${indent}` });
      }
      for (const pair of node.items) walk(pair.value, [...at, keyText(pair)]);
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...at, i]));
    }
  };
  walk(doc.contents, []);
  return edits;
}

function migrateOnce(text: string, openEnded: Set<string>): { text: string; changes: PassChange[] } | undefined {
  const lines = new LineCounter();
  const doc = parseClean(text, lines);
  if (!doc) return undefined;
  const edits: Edit[] = [];
  const changes: PassChange[] = [];
  const claimed = new Map<YAMLMap, Set<string>>();
  const deferredMoves: { name: LegacyName; profiles: Pair }[] = [];
  const removals: LegacyName[] = [];
  const record = (name: LegacyName, offset: number) =>
    changes.push({ path: pathKey(name.path), line: lines.linePos(offset).line, from: name.from, to: name.to });

  for (const name of findLegacyNames(doc)) {
    const key = keyScalar(name.pair);
    if (!key?.range) continue;
    if (name.kind === 'removed') {
      removals.push(name);
      continue;
    }
    if (name.kind === 'money') {
      // An amount with its currency becomes the money object; other text is left for the user (the loader says so).
      const value = name.pair.value;
      if (!name.to || !isScalar(value) || !value.range) continue;
      edits.push({ start: value.range[0], end: value.range[1], text: name.to });
      record(name, value.range[0]);
      continue;
    }
    if (name.kind === 'value') {
      const value = name.pair.value;
      if (!isScalar(value) || !value.range) continue;
      edits.push({ start: value.range[0], end: value.range[1], text: quoted(text.slice(value.range[0], value.range[1]), name.to) });
      record(name, value.range[0]);
      continue;
    }
    const taken = claimed.get(name.map) ?? new Set<string>();
    const sibling = siblingPair(name.map, name.to, name.pair);
    if (taken.has(name.to) || sibling) {
      const twin = sibling?.value;
      const sameValue = isScalar(twin) && isScalar(name.pair.value) && twin.value === name.pair.value.value;
      if (name.to === 'completes_goal' && sameValue && removePairLine(text, name.pair, edits)) record(name, key.range[0]);
      else if (name.from === 'interlocked_profiles' && sibling) deferredMoves.push({ name, profiles: sibling });
      continue;
    }
    taken.add(name.to);
    claimed.set(name.map, taken);
    edits.push({ start: key.range[0], end: key.range[1], text: quoted(text.slice(key.range[0], key.range[1]), name.to) });
    if (name.to === OPEN_ENDED_VALUES) openEnded.add(pathKey(name.parentPath));
    const value = name.pair.value;
    if (name.from === 'index' && isMap(value) && value.range) wrapMappingInList(text, value, edits);
    if (name.from === 'interlocked_profiles' && isSeq(value)) edits.push(...blendedMarkers(text, lines, value));
    record(name, key.range[0]);
  }
  // A move rewrites a whole block, so it runs in a pass of its own once the names inside are new.
  if (edits.length === 0) {
    for (const { name, profiles } of deferredMoves.slice(0, 1)) {
      if (moveIntoProfiles(text, lines, name, profiles, edits)) record(name, keyScalar(name.pair)!.range![0]);
    }
  }
  // Profiles travel in the 2025-12-18 shapes (the draft's `profiling`): a file that declares them moves to it.
  if (edits.length === 0) {
    const version = isMap(doc.contents) ? doc.contents.items.find((p) => keyText(p) === 'api_version') : undefined;
    const value = version?.value;
    if (isScalar(value) && value.range && typeof value.value === 'string' && value.value !== CURRENT_API_VERSION && declaresProfiles(doc.contents)) {
      edits.push({ start: value.range[0], end: value.range[1], text: quoted(text.slice(value.range[0], value.range[1]), CURRENT_API_VERSION) });
      changes.push({ path: 'api_version', line: lines.linePos(value.range[0]).line, from: value.value, to: CURRENT_API_VERSION, note: 'profiles travel in the 2025-12-18 shapes' });
    }
  }
  // A removal shifts the lines after it, so it runs last, once every rename (reported by its line) is done.
  if (edits.length === 0) {
    for (const name of removals) {
      const key = keyScalar(name.pair)!;
      if (removePairLine(text, name.pair, edits)) changes.push({ path: pathKey(name.path), line: lines.linePos(key.range![0]).line, from: name.from, to: REMOVED, note: name.note });
    }
  }
  if (edits.length === 0) {
    edits.push(...allowAllValuesEdits(doc, lines, openEnded));
    openEnded.clear();
  }
  if (edits.length === 0) return undefined;
  return { text: applyEdits(text, edits), changes };
}

/**
 * Rewrites the pre-2025-12-18 names of the spec's rename table (and the `ratecard` value) in a
 * study or shared file, and removes the fields the API assigns (`project.human_readable_id`). Older
 * conditions take the reference's shape: `zip_code` becomes `open_ended`, `zip_codes` and `values` become
 * `open_ended_values` (with `allow_all_values: false`), and a profile's `open_ended_group` goes. Edits the text by source ranges, so comments, quoting and layout stay as
 * they were. `index: {…}` becomes a one-item `conditions` list; `interlocked_profiles` entries get
 * `object: blended` and join `profiles`; a `quota_nominal` equal to `completes_goal` is dropped.
 * A name whose new name already exists beside it with another value is left for the user (the
 * loader keeps reporting it). Text with YAML errors is returned unchanged.
 */
export function migrateStudyText(input: string, options: { apiProfile?: ApiProfileName } = {}): { text: string; changes: MigrationChange[] } {
  // Webhook event names first (same-line edits: the lines the renames below report stay the input's).
  const events = migrateWebhookEvents(input, options.apiProfile ?? DEFAULT_API_PROFILE);
  const text = events.text;
  const original = new LineCounter();
  const originalDoc = parseClean(text, original);
  if (!originalDoc) return { text: input, changes: [] };
  const originalLines = new Map<string, number>();
  for (const name of findLegacyNames(originalDoc)) {
    const node = name.kind === 'value' ? (name.pair.value as Node) : keyScalar(name.pair);
    if (node?.range) originalLines.set(`${name.from}@${pathKey(name.path)}`, original.linePos(node.range[0]).line);
  }
  let current = text;
  const changes: MigrationChange[] = events.changes.map((c) => ({ line: c.line, from: c.from, to: c.to, note: `the ${options.apiProfile ?? DEFAULT_API_PROFILE} profile's event name` }));
  const openEnded = new Set<string>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const result = migrateOnce(current, openEnded);
    if (!result) break;
    current = result.text;
    for (const c of result.changes) {
      // A name inside an interlocked_profiles list renamed to profiles is found under its old path.
      const before = originalLines.get(`${c.from}@${c.path}`) ?? originalLines.get(`${c.from}@${c.path.replace('"profiles"', '"interlocked_profiles"')}`);
      const change: MigrationChange = { line: before ?? c.line, from: c.from, to: c.to };
      if (c.note) change.note = c.note;
      changes.push(change);
    }
  }
  changes.sort((a, b) => a.line - b.line);
  return { text: current, changes };
}
