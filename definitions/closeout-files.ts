// The files a study's `closeout:` names (issue 36), checked as the loader checks ID lists: paths relative to the
// study file, inside the study repository, every problem of every file located at its line and column. The
// reversal files are read together (definitions/reversal-file.ts); the approved-completes list is an ID list of RIDs.
import path from 'node:path';
import { checkIdListFileWithIds } from './id-list-file';
import { isPlainObject, type DocPath } from './doc-path';
import { guardDurationMs } from './periods';
import type { FileReporter } from './reporter';
import { checkReversalFiles, type KeptRids, type ReversalFileInput, type ReversalsSummary } from './reversal-file';
import { CloseoutSchema, DEFAULT_DEADLINE_WARNING, type Closeout } from './study-schema';

/** The close-out's files, checked: what the client stores in the blob store and the plan counts. */
export interface LoadedCloseout {
  reversals?: {
    /** The files (absolute) with their `reason`, in the study's order: the client reads them again to store the list. */
    inputs: ReversalFileInput[];
    /** The files as the study writes them (relative to it), for display. */
    files: string[];
    summary: ReversalsSummary;
  };
  approvedCompletes?: {
    /** Absolute path. */
    file: string;
    /** As diagnostics name it (joined to the study file's directory). */
    display: string;
    /** As the study writes it (relative to it), for display. */
    written: string;
    /** Distinct RIDs. */
    count: number;
    /** Hex SHA-256 of the normalized list (sorted distinct RIDs, one per line). */
    sha256: string;
  };
}

/** Says whether a file the study names lies outside the study repository, and reports it (SF6011) when it does. */
export type OutsideCheck = (refFile: string, absolute: string, at: DocPath, what: 'reversal file' | 'approved-completes list') => Promise<boolean>;

/**
 * Checks the files of a parsed `closeout:` (one without structure errors): each reversal file and the
 * approved-completes list. Problems inside a file are located in that file; a file that cannot be read is reported at
 * its `file:` value in the study (SF6001), as an ID list's is.
 */
export async function checkCloseoutFiles(raw: unknown, file: string, r: FileReporter, outside: OutsideCheck): Promise<LoadedCloseout | undefined> {
  const parsed = CloseoutSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const closeout = parsed.data;
  const studyDir = path.dirname(path.resolve(file));
  const display = (ref: string) => (path.isAbsolute(ref) ? ref : path.join(path.dirname(file), ref));
  const loaded: LoadedCloseout = {};
  let failed = false;

  // The approved completes first: a RID they keep may not be reversed too (SF6017).
  let kept: KeptRids | undefined;
  if (closeout.approved_completes) {
    const ref = closeout.approved_completes.file;
    const at: DocPath = ['closeout', 'approved_completes', 'file'];
    const absolute = path.resolve(studyDir, ref);
    if (!(await outside(ref, absolute, at, 'approved-completes list'))) {
      const shown = display(ref);
      const check = await checkIdListFileWithIds(absolute, 'approved_completes', shown);
      if (check.ids) kept = { rids: check.ids, display: shown };
      const unreadable = check.diagnostics.find((d) => d.code === 'SF6001');
      if (unreadable) {
        r.report('SF6001', at, unreadable.message.replace(`ID list ${shown}: `, `approved-completes list ${ref}: `), {
          hint: unreadable.message.endsWith(': file not found') ? `looked for ${shown}; paths are relative to the study file` : 'the list is a regular text file, one RID per line',
        });
      } else {
        r.diagnostics.push(...check.diagnostics);
        loaded.approvedCompletes = { file: absolute, display: shown, written: ref, count: check.count, sha256: check.sha256 };
      }
    }
  }

  const inputs: (ReversalFileInput & { at: DocPath; ref: string })[] = [];
  for (const [i, entry] of (closeout.reversals ?? []).entries()) {
    const at: DocPath = ['closeout', 'reversals', i, 'file'];
    const absolute = path.resolve(studyDir, entry.file);
    if (await outside(entry.file, absolute, at, 'reversal file')) {
      failed = true;
      continue;
    }
    inputs.push({ file: absolute, display: display(entry.file), ...(entry.reason !== undefined ? { reason: entry.reason } : {}), at, ref: entry.file });
  }
  if (inputs.length > 0) {
    const check = await checkReversalFiles(inputs, kept);
    for (const d of check.diagnostics) {
      const input = d.code === 'SF6001' ? inputs.find((x) => x.display === d.file) : undefined;
      if (input) {
        r.report('SF6001', input.at, d.message.replace(`reversal file ${input.display}: `, `reversal file ${input.ref}: `), {
          hint: d.message.endsWith(': file not found') ? `looked for ${input.display}; paths are relative to the study file` : 'a reversal file is a regular text file, one `RID` or `RID,code` per line',
        });
      } else {
        r.diagnostics.push(d);
      }
    }
    if (check.summary && !failed) {
      loaded.reversals = {
        inputs: inputs.map(({ file: f, display: shown, reason }) => ({ file: f, display: shown, ...(reason !== undefined ? { reason } : {}) })),
        files: inputs.map((input) => input.ref),
        summary: check.summary,
      };
    }
  }

  return loaded;
}

/** The close-out of the resolved study: defaults applied, file paths absolute (studyDir is absolute). */
export function resolvedCloseout(raw: unknown, studyDir: string): Closeout | undefined {
  if (!isPlainObject(raw)) return undefined;
  const closeout = CloseoutSchema.parse(raw);
  return {
    ...closeout,
    ...(closeout.reversals ? { reversals: closeout.reversals.map((entry) => ({ ...entry, file: path.resolve(studyDir, entry.file) })) } : {}),
    ...(closeout.approved_completes ? { approved_completes: { ...closeout.approved_completes, file: path.resolve(studyDir, closeout.approved_completes.file) } } : {}),
  };
}

/** A tolerance of the approved completes in completes: a number as written, a percentage of `expected` rounded down. */
export function toleranceInCompletes(tolerance: number | string, expected: number): number {
  if (typeof tolerance === 'number') return tolerance;
  const m = /^(\d+)(?:\.(\d{1,2}))?%$/.exec(tolerance);
  if (!m) throw new Error(`not a tolerance: ${tolerance}`); // the schema refuses it (SF2005)
  const hundredths = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return Math.floor((expected * hundredths) / 10_000);
}

/** Milliseconds of `deadline_warning` (default P3D). */
export function deadlineWarningMs(closeout: Pick<Closeout, 'deadline_warning'>): number {
  const ms = guardDurationMs(closeout.deadline_warning ?? DEFAULT_DEADLINE_WARNING);
  if (ms === undefined) throw new Error(`not a duration: ${closeout.deadline_warning}`); // the schema refuses it (SF2005)
  return ms;
}
