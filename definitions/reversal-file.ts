// Reversal files of a study's close-out (issue 36): CSV text, one RID per line (the entry's `reason` applies) or
// `RID,code`, no header, no comments. Every file is read line by line as it streams in (the line splitting and text
// checks of ID lists, definitions/id-list-file.ts), so a file of 100,000 rows and more is read in one pass; memory
// holds one entry per distinct RID (needed to find a RID listed twice, across files too) and no more than
// MAX_REVERSAL_ROWS of them. RIDs are UUIDs, compared and kept in lower case (the reference's examples write them in
// upper case; the exchange compares them without case). The normalized list is the rows sorted by RID, one
// `rid,code` per line, each followed by `\n`: what the blob store keeps and the plan counts.
import { createHash } from 'node:crypto';
import type { Diagnostic, SourceRange } from './diagnostic';
import { makeDiagnostic } from './diagnostic';
import type { DiagnosticCode } from './diagnostic-codes';
import { MAX_LINE_BYTES, MAX_LINE_DIAGNOSTICS, RESPONDENT_ID_PATTERN, splitLines, textOf, withRegularFile } from './id-list-file';
import { REASON_CODE_PATTERN } from './study-schema';
import { MAX_REVERSAL_ROWS, MAX_ROWS_PER_SUBMISSION } from '../shared/closeout-reports';

export { MAX_REVERSAL_ROWS, MAX_ROWS_PER_SUBMISSION };

/** One reversal file, as the study names it. */
export interface ReversalFileInput {
  /** Absolute path. */
  file: string;
  /** How diagnostics name the file (default `file`). */
  display?: string;
  /** The reason code of lines that give a RID only. */
  reason?: string;
}

/** One reversal source already open as bytes (tests, or a file read elsewhere). */
export interface ReversalSourceInput {
  source: AsyncIterable<Uint8Array>;
  display: string;
  reason?: string;
}

/** RIDs no reversal may name (the close-out's approved completes, which stay completes), lower case, and where they are listed. */
export interface KeptRids {
  rids: ReadonlySet<string>;
  display: string;
}

/** What the reversal files hold, normalized: ReversalsRef (plan/closeout-types.ts) without the blob store's `ref`. */
export interface ReversalsSummary {
  /** Hex SHA-256 of the normalized list. */
  sha256: string;
  /** Rows (= distinct RIDs). */
  count: number;
  /** Rows per reason code. */
  byCode: Record<string, number>;
  /** The files, as diagnostics name them. */
  files: string[];
  /** Submissions the list takes at MAX_ROWS_PER_SUBMISSION rows each. */
  submissions: number;
}

export interface ReversalsCheck {
  /** Absent when any file has an error. */
  summary?: ReversalsSummary;
  diagnostics: Diagnostic[];
}

/** Thrown by normalizedReversalChunks when the files do not pass checkReversalFiles. */
export class ReversalFileError extends Error {
  override name = 'ReversalFileError';
  constructor(readonly diagnostics: Diagnostic[]) {
    const first = diagnostics.find((d) => d.severity === 'error');
    super(`reversal files are not valid: ${first ? `${first.file}:${first.line}:${first.column}: ${first.message}` : 'unknown problem'}`);
  }
}

const UUID = RESPONDENT_ID_PATTERN;
/** A first line whose first value is words, not a RID: `rid`, `RID,code`, `respondent_id,reason`. */
const HEADER_WORD = /^[A-Za-z_][A-Za-z_ ]*$/;
const COMMENT = /^[ \t]*(#|\/\/)/;

/** The rows of every file, by RID: the code, and where the RID was first read (for the message of a repeat). */
class Rows {
  readonly index = new Map<string, number>();
  readonly codeOf: number[] = [];
  readonly fileOf: number[] = [];
  readonly lineOf: number[] = [];
  readonly codes: string[] = [];
  private readonly codeIndex = new Map<string, number>();

  add(rid: string, code: string, file: number, line: number): void {
    let c = this.codeIndex.get(code);
    if (c === undefined) {
      c = this.codes.length;
      this.codes.push(code);
      this.codeIndex.set(code, c);
    }
    this.index.set(rid, this.codeOf.length);
    this.codeOf.push(c);
    this.fileOf.push(file);
    this.lineOf.push(line);
  }

  /** The rows sorted by RID, as `rid,code`. */
  *sortedLines(): Generator<string> {
    const rids = [...this.index.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const rid of rids) yield `${rid},${this.codes[this.codeOf[this.index.get(rid)!]]}`;
  }
}

/** A value of a line and the column (1-based) it starts at, surrounding spaces and tabs left out. */
interface Field {
  text: string;
  column: number;
}

function fieldsOf(line: string): Field[] {
  const out: Field[] = [];
  let start = 0;
  for (;;) {
    const comma = line.indexOf(',', start);
    const raw = line.slice(start, comma === -1 ? line.length : comma);
    const lead = raw.length - raw.trimStart().length;
    out.push({ text: raw.trim(), column: start + lead + 1 });
    if (comma === -1) return out;
    start = comma + 1;
  }
}

interface FileScan {
  rows: number;
  /** Reading stopped (a line too long, or not text). */
  stopped: boolean;
}

async function scanFile(
  source: AsyncIterable<Uint8Array>,
  input: { display: string; reason?: string },
  fileIndex: number,
  displays: string[],
  rows: Rows,
  diagnostics: Diagnostic[],
  overLimit: { reported: boolean },
  kept: KeptRids | undefined,
): Promise<FileScan> {
  const display = input.display;
  let line = 0;
  let taken = 0;
  let problems = 0;
  let stopped = false;
  const at = (l: number, column: number, endColumn = column): SourceRange => ({ line: l, column, endLine: l, endColumn });
  const problem = (code: DiagnosticCode, range: SourceRange, message: string, hint?: string) => {
    problems += 1;
    if (problems <= MAX_LINE_DIAGNOSTICS) diagnostics.push(makeDiagnostic(code, display, range, [], message, hint));
  };

  for await (const piece of splitLines(source, MAX_LINE_BYTES)) {
    line += 1;
    if (!Buffer.isBuffer(piece)) {
      stopped = true;
      diagnostics.push(makeDiagnostic('SF6009', display, at(line, 1), [], `line ${line} is longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes; reading stopped there`, 'a reversal file holds one `RID` or `RID,code` per line'));
      break;
    }
    let bytes = piece.length > 0 && piece[piece.length - 1] === 0x0d ? piece.subarray(0, piece.length - 1) : piece;
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    if (bytes.length > MAX_LINE_BYTES) {
      stopped = true;
      diagnostics.push(makeDiagnostic('SF6009', display, at(line, 1), [], `line ${line} is longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes; reading stopped there`, 'a reversal file holds one `RID` or `RID,code` per line'));
      break;
    }
    const decoded = textOf(bytes);
    if (!('text' in decoded)) {
      stopped = true;
      diagnostics.push(makeDiagnostic('SF6010', display, at(line, decoded.column), [], `line ${line} is not text: ${decoded.message}; reading stopped there`, 'a reversal file is UTF-8 text; is this a binary file?'));
      break;
    }
    const text = decoded.text;
    const end = text.length + 1;
    if (text.trim() === '') {
      problem('SF6004', at(line, 1), `blank line ${line}: a reversal file has no blank lines`, 'remove it; every line holds `RID` or `RID,code`');
      continue;
    }
    if (COMMENT.test(text)) {
      problem('SF6012', at(line, 1, end), `line ${line} is a comment: a reversal file has no comments`, 'remove it; keep notes in the study file (YAML comments) instead');
      continue;
    }
    const fields = fieldsOf(text);
    const [ridField, codeField] = fields;
    if (line === 1 && !UUID.test(ridField.text) && HEADER_WORD.test(ridField.text)) {
      problem('SF6002', at(1, 1, end), `first line "${text.trim().slice(0, 80)}" looks like a header: a reversal file has no header`, 'remove it: each line is `RID` or `RID,code`');
      continue;
    }
    if (fields.length > 2) {
      problem('SF6003', at(line, fields[2].column - 1, end), `line ${line} holds more than two values`, 'each line is `RID` or `RID,code`');
      continue;
    }
    if (!UUID.test(ridField.text)) {
      problem('SF6003', at(line, ridField.column, ridField.column + ridField.text.length), `invalid RID on line ${line}: not a RID (a UUID)`, 'RIDs are UUIDs such as 0f1ce179-a917-49ff-9d50-b05fc91f7bd4');
      continue;
    }
    let code: string;
    if (codeField === undefined) {
      if (input.reason === undefined) {
        problem('SF6015', at(line, end), `line ${line} gives no reason code, and the file's entry has no \`reason\``, 'write `RID,code` on the line, or give the entry a `reason` for lines with a RID only');
        continue;
      }
      code = input.reason;
    } else if (!REASON_CODE_PATTERN.test(codeField.text)) {
      const shown = codeField.text === '' ? 'an empty reason code' : `reason code "${codeField.text.slice(0, 40)}"`;
      problem('SF6015', at(line, codeField.column, Math.max(codeField.column, codeField.column + codeField.text.length)), `line ${line} has ${shown}, not one of the exchange's form`, 'a reason code is 1 to 6 digits, such as 11 or 932 (request_reconciliation_reason_codes lists them)');
      continue;
    } else {
      code = codeField.text;
    }
    const rid = ridField.text.toLowerCase();
    const seen = rows.index.get(rid);
    if (seen !== undefined) {
      const first = `${displays[rows.fileOf[seen]]}:${rows.lineOf[seen]}`;
      const firstCode = rows.codes[rows.codeOf[seen]];
      const range = at(line, ridField.column, ridField.column + ridField.text.length);
      if (firstCode === code) {
        problem('SF6013', range, `the RID on line ${line} is listed before, at ${first}`, 'list each RID once, in one file');
      } else {
        problem('SF6014', range, `the RID on line ${line} has reason code ${code}, and ${firstCode} at ${first}`, 'a RID is reversed for one reason: keep one of the lines');
      }
      continue;
    }
    if (rows.index.size >= MAX_REVERSAL_ROWS) {
      if (!overLimit.reported) {
        overLimit.reported = true;
        diagnostics.push(
          makeDiagnostic('SF6016', display, at(line, 1), [], `more than ${MAX_REVERSAL_ROWS.toLocaleString('en-US')} reversals in the study's files (line ${line} is over the limit)`, 'split the close-out: reverse the rest in a later revision of the file'),
        );
      }
      stopped = true;
      break;
    }
    if (kept?.rids.has(rid)) {
      problem('SF6017', at(line, ridField.column, ridField.column + ridField.text.length), `the RID on line ${line} is also an approved complete in ${kept.display}`, 'a complete either stays (approved) or is reversed: remove it from one of the files');
      continue;
    }
    rows.add(rid, code, fileIndex, line);
    taken += 1;
  }
  if (problems > MAX_LINE_DIAGNOSTICS) {
    diagnostics.push(makeDiagnostic('SF6003', display, at(line, 1), [], `${problems - MAX_LINE_DIAGNOSTICS} more problems not listed (${problems} in all)`));
  }
  if (line === 0) {
    diagnostics.push(makeDiagnostic('SF6007', display, at(1, 1), [], 'the reversal file holds no rows', 'add `RID` or `RID,code` lines, or remove the entry'));
  }
  return { rows: taken, stopped };
}

interface Scanned {
  rows: Rows;
  diagnostics: Diagnostic[];
  displays: string[];
}

type Opened = { display: string; reason?: string; open: <T>(read: (source: AsyncIterable<Uint8Array>) => Promise<T>) => Promise<T> };

async function scanAll(inputs: readonly Opened[], kept?: KeptRids): Promise<Scanned> {
  const rows = new Rows();
  const diagnostics: Diagnostic[] = [];
  const displays = inputs.map((i) => i.display);
  const overLimit = { reported: false };
  for (const [index, input] of inputs.entries()) {
    try {
      await input.open((source) => scanFile(source, input, index, displays, rows, diagnostics, overLimit, kept));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : code === 'ENOTREG' ? 'not a regular file (a device, FIFO or socket)' : `cannot be read (${code ?? 'unknown error'})`;
      diagnostics.push(makeDiagnostic('SF6001', input.display, { line: 1, column: 1, endLine: 1, endColumn: 1 }, [], `reversal file ${input.display}: ${reason}`));
    }
  }
  return { rows, diagnostics, displays };
}

const fromFiles = (inputs: readonly ReversalFileInput[]): Opened[] =>
  inputs.map((i) => ({ display: i.display ?? i.file, reason: i.reason, open: (read) => withRegularFile(i.file, read) }));

const fromSources = (inputs: readonly ReversalSourceInput[]): Opened[] =>
  inputs.map((i) => ({ display: i.display, reason: i.reason, open: (read) => read(i.source) }));

/** The normalized list as chunks of about 64 KiB: `rid,code\n` rows sorted by RID. */
function* chunksOf(rows: Rows): Generator<Buffer> {
  let batch: string[] = [];
  let chars = 0;
  for (const row of rows.sortedLines()) {
    batch.push(row, '\n');
    chars += row.length + 1;
    if (chars >= 64 * 1024) {
      yield Buffer.from(batch.join(''), 'utf8');
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) yield Buffer.from(batch.join(''), 'utf8');
}

function checkOf(scanned: Scanned): ReversalsCheck {
  const { rows, diagnostics, displays } = scanned;
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const hash = createHash('sha256');
  for (const chunk of chunksOf(rows)) hash.update(chunk);
  const byCode: Record<string, number> = {};
  for (const c of rows.codeOf) byCode[rows.codes[c]] = (byCode[rows.codes[c]] ?? 0) + 1;
  const sorted = Object.fromEntries(Object.entries(byCode).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const count = rows.index.size;
  return {
    summary: { sha256: hash.digest('hex'), count, byCode: sorted, files: displays, submissions: Math.ceil(count / MAX_ROWS_PER_SUBMISSION) },
    diagnostics,
  };
}

/**
 * Checks a study's reversal files together (a RID listed in two files is a repeat): every problem of every file is a
 * diagnostic located at its line and column; unreadable files are SF6001 at line 1; a RID of `kept` is SF6017.
 * Without errors, the summary of the normalized list.
 */
export async function checkReversalFiles(inputs: readonly ReversalFileInput[], kept?: KeptRids): Promise<ReversalsCheck> {
  return checkOf(await scanAll(fromFiles(inputs), kept));
}

/** checkReversalFiles over sources already open as bytes; each is read once, as far as needed. */
export async function checkReversalSources(inputs: readonly ReversalSourceInput[]): Promise<ReversalsCheck> {
  return checkOf(await scanAll(fromSources(inputs)));
}

/**
 * The normalized list of the reversal files, as chunks to store (the blob store's put takes them): `rid,code\n` rows
 * sorted by RID. Rejects with ReversalFileError when the files have errors.
 */
export async function normalizedReversalChunks(inputs: readonly ReversalFileInput[]): Promise<{ summary: ReversalsSummary; chunks: () => Generator<Buffer> }> {
  const scanned = await scanAll(fromFiles(inputs));
  const check = checkOf(scanned);
  if (!check.summary) throw new ReversalFileError(check.diagnostics);
  return { summary: check.summary, chunks: () => chunksOf(scanned.rows) };
}
