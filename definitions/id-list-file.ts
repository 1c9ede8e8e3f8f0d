// ID list files: one ID per line, no header, at most 100,000 IDs. The bytes are split into lines as
// they stream in, so a file of 100,000 lines is checked in one pass and memory stays bounded: the
// set of distinct IDs stops growing past the limit, and a line may hold at most MAX_LINE_BYTES bytes
// (a file that never ends a line, such as a device, is refused once a line passes that, without
// reading on). Only regular files are read; a line that is not UTF-8 text stops the reading too.
// The normalized list is the sorted, de-duplicated IDs, one per line.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { open, stat } from 'node:fs/promises';
import type { Diagnostic } from './diagnostic';
import { makeDiagnostic } from './diagnostic';
import type { DiagnosticCode } from './diagnostic-codes';
import { describeCharacter, NOT_TEXT, utf8ErrorOffset } from './text-bytes';

/** The lists a target group names. */
export type TargetGroupListKind = 'respondent_ids' | 'respondent_guids' | 'recontact';
/** Every list read as an ID list; `approved_completes` is the close-out's list of RIDs that stay completes. */
export type IdListKind = TargetGroupListKind | 'approved_completes';

export const MAX_IDS_PER_LIST = 100_000;
/** Longest ID, in characters (the blob store that uploads the list holds IDs to the same length). */
export const MAX_ID_LENGTH = 256;
/** Longest line, in bytes without its line end; reading stops at a longer line (SF6009). */
export const MAX_LINE_BYTES = 1024;
/** Invalid lines reported one by one; the rest are counted in one summary diagnostic. */
export const MAX_LINE_DIAGNOSTICS = 20;

/**
 * The reference types both respondent identifiers as UUIDs (`format: uuid` on the RSID and the
 * ACCESS_RESPONDENT_GUID exclusion lists, ExclusionsRespondentIDListResponse and CobraIDListPaginatedResponse;
 * the recontact upload's example file is UUIDs too).
 */
export const RESPONDENT_ID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UUID = RESPONDENT_ID_PATTERN;
const HEADER = /^(r_?ids?|rs_?ids?|ids?|respondent_?ids?|respondent_?guids?|guids?|access_respondent_guids?|uuids?|entity_type)$/i;

export interface IdListCheck {
  /** Distinct valid IDs. */
  count: number;
  /** sha256 (hex) of the normalized list: sorted distinct IDs, each followed by `\n`. */
  sha256: string;
  /** Lines whose ID already appeared earlier. */
  duplicates: number;
  diagnostics: Diagnostic[];
}

/** Thrown by writeNormalizedIdList for a file that does not pass checkIdListFile. */
export class IdListFileError extends Error {
  override name = 'IdListFileError';
  constructor(
    readonly file: string,
    readonly diagnostics: Diagnostic[],
  ) {
    super(`ID list ${file} is not valid: ${diagnostics.find((d) => d.severity === 'error')?.message ?? 'unknown problem'}`);
  }
}

function entityWord(kind: IdListKind): string {
  return kind === 'respondent_guids' ? 'ACCESS_RESPONDENT_GUID' : kind === 'approved_completes' ? 'RID' : 'RSID';
}

/** Why a line is not an ID of this kind, or undefined if it is one. */
function lineProblem(line: string, kind: IdListKind): { code: DiagnosticCode; message: string; hint?: string; column: number } | undefined {
  if (line.trim() === '') return { code: 'SF6004', message: 'blank line', hint: 'remove blank lines; the file has one ID per line', column: 1 };
  const ws = line.search(/\s/);
  if (/[,;]/.test(line)) {
    return { code: 'SF6003', message: 'line holds more than one value', hint: 'one ID per line, without commas or semicolons', column: line.search(/[,;]/) + 1 };
  }
  if (ws !== -1) return { code: 'SF6003', message: 'ID contains whitespace', hint: 'remove spaces and tabs around and inside IDs', column: ws + 1 };
  if (line.length > MAX_ID_LENGTH) {
    return { code: 'SF6003', message: `ID longer than ${MAX_ID_LENGTH} characters`, hint: 'one ID per line; IDs are short codes', column: MAX_ID_LENGTH + 1 };
  }
  if (kind === 'respondent_guids' && !UUID.test(line)) {
    return { code: 'SF6003', message: 'not a GUID', hint: 'ACCESS_RESPONDENT_GUIDs are UUIDs such as 3f2b8c1e-7d4a-4e0b-9c55-2a1f0e6d9b77', column: 1 };
  }
  if (kind === 'approved_completes' && !UUID.test(line)) {
    return { code: 'SF6003', message: 'not a RID (a UUID)', hint: 'RIDs are UUIDs such as 0f1ce179-a917-49ff-9d50-b05fc91f7bd4', column: 1 };
  }
  if (kind !== 'respondent_guids' && !UUID.test(line)) {
    return { code: 'SF6003', message: 'not an RSID (a UUID)', hint: 'RSIDs are UUIDs such as 0f1ce179-a917-49ff-9d50-b05fc91f7bd4', column: 1 };
  }
  return undefined;
}

interface ScanResult {
  ids: Set<string>;
  lines: number;
  duplicates: number;
  firstDuplicate?: { line: number; of: number };
  diagnostics: Diagnostic[];
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** NOT_TEXT, and a carriage return that does not end a line (line ends are `\n` or `\r\n`). */
const NOT_ID_LIST_TEXT = new RegExp(`${NOT_TEXT.source}|\r`);

/** Why the bytes of one line (line end removed) are not text, or undefined when they are; with the line as text. */
export function textOf(bytes: Buffer): { text: string } | { column: number; message: string } {
  const bad = utf8ErrorOffset(bytes);
  if (bad !== -1) {
    const column = bytes.subarray(0, bad).toString('utf8').length + 1;
    return { column, message: `its byte ${bad + 1} (0x${bytes[bad].toString(16).padStart(2, '0')}) is not UTF-8` };
  }
  const text = bytes.toString('utf8');
  const control = NOT_ID_LIST_TEXT.exec(text);
  if (control) return { column: control.index + 1, message: `it holds the control character ${describeCharacter(control[0])}` };
  return { text };
}

/**
 * Splits a byte stream into lines at `\n` (a `\r` before it is part of the line end), refusing lines longer than
 * `maxBytes`. A file that holds nothing but a BOM has no lines: it is empty, as an editor shows it.
 */
export async function* splitLines(source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Buffer | { tooLong: true }> {
  let parts: Buffer[] = [];
  let size = 0;
  let yielded = false;
  for await (const data of source) {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      // One byte more than the cap may be the `\r` of a `\r\n` line end.
      if (size + piece.length > maxBytes + 1) {
        yield { tooLong: true };
        return;
      }
      parts.push(piece);
      size += piece.length;
      if (newline === -1) break;
      const line = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
      parts = [];
      size = 0;
      start = newline + 1;
      yielded = true;
      yield line;
    }
  }
  if (size === 0) return;
  const last = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
  if (!yielded && last.equals(BOM)) return;
  yield last;
}

async function scan(source: AsyncIterable<Uint8Array>, kind: IdListKind, displayFile: string): Promise<ScanResult> {
  const diagnostics: Diagnostic[] = [];
  const firstLineOf = new Map<string, number>();
  let lines = 0;
  let duplicates = 0;
  let firstDuplicate: ScanResult['firstDuplicate'];
  let badLines = 0;
  let overLimitAt: number | undefined;
  let stopped = false;
  const at = (line: number, column: number, endColumn = column) => ({ line, column, endLine: line, endColumn });
  const tooLong = (line: number) => {
    stopped = true;
    diagnostics.push(
      makeDiagnostic(
        'SF6009',
        displayFile,
        at(line, 1),
        [],
        `line ${line} is longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes; reading stopped there`,
        `an ID list holds one ID per line, at most ${MAX_ID_LENGTH} characters each; a file that never ends a line is not one`,
      ),
    );
  };

  for await (const piece of splitLines(source, MAX_LINE_BYTES)) {
    lines++;
    if (!Buffer.isBuffer(piece)) {
      tooLong(lines);
      break;
    }
    let bytes = piece.length > 0 && piece[piece.length - 1] === 0x0d ? piece.subarray(0, piece.length - 1) : piece;
    if (lines === 1 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (bytes.length > MAX_LINE_BYTES) {
      tooLong(lines);
      break;
    }
    const decoded = textOf(bytes);
    if (!('text' in decoded)) {
      stopped = true;
      diagnostics.push(
        makeDiagnostic('SF6010', displayFile, at(lines, decoded.column), [], `line ${lines} is not text: ${decoded.message}; reading stopped there`, 'an ID list is UTF-8 text, one ID per line; is this a binary file?'),
      );
      break;
    }
    const line = decoded.text;
    if (lines === 1 && HEADER.test(line.trim())) {
      diagnostics.push(
        makeDiagnostic('SF6002', displayFile, at(1, 1, line.length + 1), [], `first line "${line.trim()}" looks like a header`, 'remove it: the file has one ID per line and no header'),
      );
      continue;
    }
    const problem = lineProblem(line, kind);
    if (problem) {
      badLines++;
      if (badLines <= MAX_LINE_DIAGNOSTICS) {
        const what = problem.code === 'SF6004' ? problem.message : `invalid ${entityWord(kind)} on line ${lines}: ${problem.message}`;
        diagnostics.push(makeDiagnostic(problem.code, displayFile, at(lines, problem.column, line.length + 1), [], what, problem.hint));
      }
      continue;
    }
    // Every respondent ID is a UUID: compared and kept in lowercase.
    const id = line.toLowerCase();
    const seen = firstLineOf.get(id);
    if (seen !== undefined) {
      duplicates++;
      firstDuplicate ??= { line: lines, of: seen };
    } else if (firstLineOf.size < MAX_IDS_PER_LIST) {
      firstLineOf.set(id, lines);
    } else {
      overLimitAt ??= lines;
    }
  }
  if (badLines > MAX_LINE_DIAGNOSTICS) {
    diagnostics.push(
      makeDiagnostic('SF6003', displayFile, at(lines, 1), [], `${badLines - MAX_LINE_DIAGNOSTICS} more invalid lines not listed (${badLines} in all)`),
    );
  }
  if (overLimitAt !== undefined) {
    diagnostics.push(
      makeDiagnostic(
        'SF6005',
        displayFile,
        at(overLimitAt, 1),
        [],
        `more than ${MAX_IDS_PER_LIST.toLocaleString('en-US')} distinct IDs (line ${overLimitAt} is over the limit)`,
        'split the list or remove old IDs: the API takes at most 100,000 per target group',
      ),
    );
  }
  if (firstLineOf.size === 0 && badLines === 0 && !stopped) {
    diagnostics.push(makeDiagnostic('SF6007', displayFile, at(1, 1), [], 'the ID list holds no IDs', 'add IDs, one per line, or remove the reference to the file'));
  }
  if (duplicates > 0 && firstDuplicate) {
    diagnostics.push(
      makeDiagnostic(
        'SF6006',
        displayFile,
        at(firstDuplicate.line, 1),
        [],
        `${duplicates} duplicate ID${duplicates === 1 ? '' : 's'} will be removed (line ${firstDuplicate.line} repeats line ${firstDuplicate.of})`,
      ),
    );
  }
  return { ids: new Set(firstLineOf.keys()), lines, duplicates, firstDuplicate, diagnostics };
}

/** Reads a regular file through `read`; anything else (a device, a FIFO, a socket) is refused before it is opened, since it may never end. */
export async function withRegularFile<T>(file: string, read: (source: AsyncIterable<Uint8Array>) => Promise<T>): Promise<T> {
  const info = await stat(file);
  if (info.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' });
  if (!info.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
  const handle = await open(file, 'r');
  try {
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    const input = handle.createReadStream({ autoClose: false, highWaterMark: 64 * 1024 });
    try {
      return await read(input);
    } finally {
      input.destroy();
    }
  } finally {
    await handle.close();
  }
}

function sortedIds(ids: Set<string>): string[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The normalized list's hash: sorted distinct IDs, each followed by a newline. */
export function hashIdList(sorted: readonly string[]): string {
  const hash = createHash('sha256');
  for (const id of sorted) hash.update(`${id}\n`);
  return hash.digest('hex');
}

function checkOf(result: ScanResult): IdListCheck {
  return { count: result.ids.size, sha256: hashIdList(sortedIds(result.ids)), duplicates: result.duplicates, diagnostics: result.diagnostics };
}

/**
 * Checks an ID list file line by line. Unreadable files (and anything but a regular file) give one
 * SF6001 diagnostic. IDs (UUIDs) are compared and normalized in lowercase. `displayFile` names the file in
 * diagnostics (default: `file`).
 */
export async function checkIdListFile(file: string, kind: IdListKind, displayFile = file): Promise<IdListCheck> {
  return checkOf(await scanOrUnreadable(file, kind, displayFile));
}

/**
 * Checks an ID list file as checkIdListFile does and also gives its distinct IDs (lower case) when it has no error:
 * for a check across lists (the close-out's approved completes against its reversals). At most 100,000 IDs.
 */
export async function checkIdListFileWithIds(file: string, kind: IdListKind, displayFile = file): Promise<IdListCheck & { ids?: ReadonlySet<string> }> {
  const result = await scanOrUnreadable(file, kind, displayFile);
  const check = checkOf(result);
  return result.diagnostics.some((d) => d.severity === 'error') ? check : { ...check, ids: result.ids };
}

/** Checks an ID list given as a stream of bytes; it is read only as far as needed (see MAX_LINE_BYTES). */
export async function checkIdListSource(source: AsyncIterable<Uint8Array>, kind: IdListKind, displayFile: string): Promise<IdListCheck> {
  return checkOf(await scan(source, kind, displayFile));
}

async function scanOrUnreadable(file: string, kind: IdListKind, displayFile: string): Promise<ScanResult> {
  try {
    return await withRegularFile(file, (source) => scan(source, kind, displayFile));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : code === 'ENOTREG' ? 'not a regular file (a device, FIFO or socket)' : `cannot be read (${code ?? 'unknown error'})`;
    const start = { line: 1, column: 1, endLine: 1, endColumn: 1 };
    return { ids: new Set(), lines: 0, duplicates: 0, diagnostics: [makeDiagnostic('SF6001', displayFile, start, [], `ID list ${displayFile}: ${reason}`)] };
  }
}

/**
 * Streams the normalized list (sorted distinct IDs, one per line) to `out`, honouring back-pressure.
 * Rejects with IdListFileError when the file has errors. Does not end `out`.
 */
export async function writeNormalizedIdList(file: string, kind: IdListKind, out: NodeJS.WritableStream): Promise<{ count: number; sha256: string }> {
  const result = await scanOrUnreadable(file, kind, file);
  if (result.diagnostics.some((d) => d.severity === 'error')) throw new IdListFileError(file, result.diagnostics);
  const sorted = sortedIds(result.ids);
  const hash = createHash('sha256');
  for (const id of sorted) {
    const line = `${id}\n`;
    hash.update(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  return { count: sorted.length, sha256: hash.digest('hex') };
}
