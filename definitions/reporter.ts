import type { DiagnosticCode, Severity } from './diagnostic-codes';
import { makeDiagnostic, START_OF_FILE, type Diagnostic } from './diagnostic';
import type { DocPath } from './doc-path';
import type { SourceMap } from './source-map';

export interface ReportOptions {
  hint?: string;
  severity?: Severity;
  /** Point at the key instead of the value. */
  target?: 'key' | 'value';
  /** Locate at this path instead of the diagnostic's own path (e.g. the parent of a missing field). */
  at?: DocPath;
}

/** Collects diagnostics of one file, locating each document path through the file's source map. */
export class FileReporter {
  constructor(
    readonly file: string,
    private readonly map: SourceMap | undefined,
    readonly diagnostics: Diagnostic[] = [],
  ) {}

  report(code: DiagnosticCode, docPath: DocPath, message: string, options: ReportOptions = {}): Diagnostic {
    const range = this.map ? this.map.locate(options.at ?? docPath, options.target) : START_OF_FILE;
    const d = makeDiagnostic(code, this.file, range, docPath, message, options.hint, options.severity);
    this.diagnostics.push(d);
    return d;
  }
}
