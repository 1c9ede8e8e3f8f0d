// ID list files: one ID per line, no header, at most 100,000 IDs. Read with readline so a file of
// 100,000 lines is checked in one pass; memory is bounded by the limit (the set of distinct IDs
// stops growing past it). The normalized list is the sorted, de-duplicated IDs, one per line.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Diagnostic } from './diagnostic';
import { makeDiagnostic } from './diagnostic';
import type { DiagnosticCode } from './diagnostic-codes';

export type IdListKind = 'respondent_ids' | 'respondent_guids' | 'recontact';

export const MAX_IDS_PER_LIST = 100_000;
/** Invalid lines reported one by one; the rest are counted in one summary diagnostic. */
export const MAX_LINE_DIAGNOSTICS = 20;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HEADER = /^(rs_?ids?|ids?|respondent_?ids?|respondent_?guids?|guids?|access_respondent_guids?|uuids?|entity_type)$/i;

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
  return kind === 'respondent_guids' ? 'ACCESS_RESPONDENT_GUID' : 'RSID';
}

/** Why a line is not an ID of this kind, or undefined if it is one. */
function lineProblem(line: string, kind: IdListKind): { code: DiagnosticCode; message: string; hint?: string; column: number } | undefined {
  if (line.trim() === '') return { code: 'SF6004', message: 'blank line', hint: 'remove blank lines; the file has one ID per line', column: 1 };
  const ws = line.search(/\s/);
  if (/[,;]/.test(line)) {
    return { code: 'SF6003', message: 'line holds more than one value', hint: 'one ID per line, without commas or semicolons', column: line.search(/[,;]/) + 1 };
  }
  if (ws !== -1) return { code: 'SF6003', message: 'ID contains whitespace', hint: 'remove spaces and tabs around and inside IDs', column: ws + 1 };
  if (kind === 'respondent_guids' && !UUID.test(line)) {
    return { code: 'SF6003', message: 'not a GUID', hint: 'ACCESS_RESPONDENT_GUIDs are UUIDs such as 3f2b8c1e-7d4a-4e0b-9c55-2a1f0e6d9b77', column: 1 };
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

async function scan(file: string, kind: IdListKind, displayFile: string): Promise<ScanResult> {
  const diagnostics: Diagnostic[] = [];
  const firstLineOf = new Map<string, number>();
  let lines = 0;
  let duplicates = 0;
  let firstDuplicate: ScanResult['firstDuplicate'];
  let badLines = 0;
  let overLimitAt: number | undefined;
  const at = (line: number, column: number, endColumn = column) => ({ line, column, endLine: line, endColumn });

  const input = createReadStream(file, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const raw of reader) {
      lines++;
      const line = lines === 1 ? raw.replace(/^\uFEFF/, '') : raw;
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
      const id = kind === 'respondent_guids' ? line.toLowerCase() : line;
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
  } finally {
    reader.close();
    input.destroy();
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
  if (firstLineOf.size === 0 && badLines === 0) {
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

function sortedIds(ids: Set<string>): string[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The normalized list's hash: sorted distinct IDs, each followed by a newline. */
export function hashIdList(sorted: readonly string[]): string {
  const hash = createHash('sha256');
  for (const id of sorted) hash.update(`${id}\n`);
  return hash.digest('hex');
}

/**
 * Checks an ID list file line by line. Unreadable files give one SF6001 diagnostic. GUIDs are
 * compared and normalized in lowercase. `displayFile` names the file in diagnostics (default: `file`).
 */
export async function checkIdListFile(file: string, kind: IdListKind, displayFile = file): Promise<IdListCheck> {
  const result = await scanOrUnreadable(file, kind, displayFile);
  return { count: result.ids.size, sha256: hashIdList(sortedIds(result.ids)), duplicates: result.duplicates, diagnostics: result.diagnostics };
}

async function scanOrUnreadable(file: string, kind: IdListKind, displayFile: string): Promise<ScanResult> {
  try {
    return await scan(file, kind, displayFile);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
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
