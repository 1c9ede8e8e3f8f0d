import path from 'node:path';
import { DIAGNOSTIC_CODES, type DiagnosticCode, type Severity } from './diagnostic-codes';

/** One problem found in a study file, a shared file or an ID list file. Lines and columns are 1-based. */
export interface Diagnostic {
  /** Stable code from the catalogue, e.g. `SF4002` (see docs/study-format.md). */
  code: DiagnosticCode;
  severity: Severity;
  /** The file the problem is in, as the caller named it (ID list files: joined to the study's directory). */
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** Path of the offending value in the document, e.g. `['target_groups', 'us', 'live_url']`. */
  path: (string | number)[];
  message: string;
  hint?: string;
}

/** A range in a file, 1-based. */
export interface SourceRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export const START_OF_FILE: SourceRange = { line: 1, column: 1, endLine: 1, endColumn: 1 };

/** Builds a diagnostic; the severity comes from the catalogue unless given. */
export function makeDiagnostic(
  code: DiagnosticCode,
  file: string,
  range: SourceRange,
  docPath: (string | number)[],
  message: string,
  hint?: string,
  severity?: Severity,
): Diagnostic {
  const d: Diagnostic = { code, severity: severity ?? DIAGNOSTIC_CODES[code].severity, file, ...range, path: docPath, message };
  if (hint) d.hint = hint;
  return d;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

function displayPath(file: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * One GitHub Actions workflow command (`::error file=a.yaml,line=3,title=…::message`): an annotation the runner
 * shows on the diff and in the run. Properties without a value are left out; both parts are escaped.
 */
export function githubCommand(
  level: 'error' | 'warning' | 'notice',
  properties: Record<string, string | number | undefined>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(',');
  return `::${level}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

/**
 * One line per diagnostic. `human`: `file:line:col: severity CODE message (hint)`.
 * `github`: a workflow command (`::error file=…,line=…::…`) that GitHub Actions shows as an annotation.
 * Absolute paths under the working directory are printed relative to it.
 */
export function formatDiagnostic(d: Diagnostic, format: 'human' | 'github'): string {
  const file = displayPath(d.file);
  if (format === 'human') {
    return `${file}:${d.line}:${d.column}: ${d.severity} ${d.code} ${d.message}${d.hint ? ` (${d.hint})` : ''}`;
  }
  const title = `${d.code} ${DIAGNOSTIC_CODES[d.code].title}`;
  const text = d.hint ? `${d.message}\n${d.hint}` : d.message;
  return githubCommand(d.severity, { file, line: d.line, col: d.column, endLine: d.endLine, endColumn: d.endColumn, title }, text);
}
