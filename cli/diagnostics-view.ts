import { formatDiagnostic, type Diagnostic } from '../definitions';
import type { Output } from './output';

/** Prints diagnostics to stderr (human) and returns whether any is an error. */
export function reportDiagnostics(out: Output, diagnostics: Diagnostic[], format: 'human' | 'github' = 'human'): boolean {
  for (const d of diagnostics) {
    const line = formatDiagnostic(d, format);
    if (format === 'github') out.data(line);
    else out.progress(d.severity === 'error' ? out.red(line) : out.yellow(line));
  }
  return diagnostics.some((d) => d.severity === 'error');
}
