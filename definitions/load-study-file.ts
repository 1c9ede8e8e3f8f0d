import { readFile } from 'node:fs/promises';
import type { ApiProfileName } from '../shared/api-profile';
import path from 'node:path';
import { analyzeStudy } from './analyze-study';
import { compareDiagnostics, hasErrors, makeDiagnostic, START_OF_FILE, type Diagnostic, type SourceRange } from './diagnostic';
import { checkDocument } from './document-checks';
import { checkCloseoutFiles, type LoadedCloseout, type OutsideCheck } from './closeout-files';
import type { DocPath } from './doc-path';
import { checkIdListFile, MAX_IDS_PER_LIST, type TargetGroupListKind } from './id-list-file';
import { resolveStudy } from './resolve-study';
import { ALLOW_OUTSIDE_PATHS_ENV, outsideRepository, studyRepositoryOf, type StudyRepository } from './study-repository';
import { decodeYamlBytes } from './yaml-source';
import { isSharedFileName, loadSharedDefinitions, type SharedDefinitions } from './shared-definitions';
import type { Study } from './study-schema';

/** An ID list file a target group names, checked: what the planner uploads and compares. */
export interface IdListRef {
  /** Local key of the target group. */
  targetGroup: string;
  kind: TargetGroupListKind;
  /** Absolute path. */
  file: string;
  /** Distinct IDs. */
  count: number;
  /** sha256 (hex) of the normalized list: the sorted distinct IDs, one per line. */
  sha256: string;
}

export interface LoadedStudy {
  /** The study file as the caller named it. */
  file: string;
  study: Study;
  idLists: IdListRef[];
  /** The files of the study's `closeout:`, checked (absent when it has none). */
  closeout?: LoadedCloseout;
  /** The directory's shared.yaml, when the study's directory has one. */
  sharedFile?: string;
}

/** Options of loadStudyFile and loadStudies. */
export interface LoadOptions {
  /** Where `${NAME}` references are read from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Shared definitions by absolute directory, reused across files of one run. */
  sharedCache?: Map<string, Promise<SharedDefinitions>>;
  /** Whether the diagnostics of the directory's shared.yaml are returned too (default: true). */
  includeSharedDiagnostics?: boolean;
  /**
   * Let ID list files lie outside the study repository (default: false, SF6011). The repository is
   * the nearest git work tree holding the study file, else the study file's directory.
   */
  allowOutsidePaths?: boolean;
  /**
   * The connection profile whose API the study is checked against (webhook events, spec-only fields); default
   * `sandbox`. The CLI passes `--profile`, else STUDYFLOW_API_PROFILE.
   */
  apiProfile?: ApiProfileName;
}

/** Internal result: also where the study id stands, for duplicate checks across files. */
export interface StudyFileResult {
  study?: LoadedStudy;
  diagnostics: Diagnostic[];
  studyId?: string;
  studyIdRange?: SourceRange;
  shared?: SharedDefinitions;
}

function sharedFor(file: string, options: LoadOptions, env: Record<string, string | undefined>): Promise<SharedDefinitions> {
  const dir = path.dirname(file);
  const key = path.resolve(dir);
  const cache = options.sharedCache;
  let pending = cache?.get(key);
  if (!pending) {
    pending = loadSharedDefinitions(dir, env);
    cache?.set(key, pending);
  }
  return pending;
}

function readFailure(file: string, err: unknown): Diagnostic {
  const code = (err as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? 'unknown error'})`;
  return makeDiagnostic('SF1001', file, START_OF_FILE, [], `${file}: ${reason}`);
}

export async function loadStudyFileWithDetails(file: string, options: LoadOptions = {}): Promise<StudyFileResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    return { diagnostics: [readFailure(file, err)] };
  }
  // A shared.yaml named as a file is checked as part of its directory's shared definitions.
  if (isSharedFileName(file)) return loadStudyText('', file, options);
  const { text, diagnostics } = decodeYamlBytes(bytes, file);
  if (text === undefined) return { diagnostics };
  return loadStudyText(text, file, options);
}

/** Like loadStudyFile for text already read; `file` names it in diagnostics and anchors relative paths. */
export async function loadStudyText(text: string, file: string, options: LoadOptions = {}): Promise<StudyFileResult> {
  const env = options.env ?? process.env;
  const shared = await sharedFor(file, options, env);
  const sharedDiagnostics = options.includeSharedDiagnostics === false ? [] : shared.diagnostics;
  if (isSharedFileName(file)) return { diagnostics: [...shared.diagnostics].sort(compareDiagnostics), shared };

  const { checked, diagnostics } = checkDocument(text, file, 'study', env);
  if (!checked) return { diagnostics: [...diagnostics, ...sharedDiagnostics].sort(compareDiagnostics), shared };
  const r = checked.reporter;
  const studyId = typeof checked.data.study === 'string' ? checked.data.study : undefined;
  const studyIdRange = checked.parsed.map.locate(['study']);
  const analysis = analyzeStudy(checked, shared, options.apiProfile);

  const studyDir = path.dirname(path.resolve(file));
  const idLists: IdListRef[] = [];
  let repository: StudyRepository | undefined;
  /** Reports SF6011 and says true when a file the study names lies outside the study repository (it is not read then). */
  const refusedOutside = async (refFile: string, absolute: string, at: DocPath, what: 'ID list' | Parameters<OutsideCheck>[3]): Promise<boolean> => {
    if (options.allowOutsidePaths) return false;
    repository ??= await studyRepositoryOf(file);
    const outside = await outsideRepository(repository, absolute);
    if (outside === undefined) return false;
    const where = repository.git ? 'the git work tree that holds the study file' : 'the study file\'s directory, as it is not in a git work tree';
    const resolved = outside === absolute ? '' : ` (it resolves to ${outside})`;
    const plural = what === 'ID list' ? 'ID lists' : 'close-out files';
    r.report('SF6011', at, `${what} ${refFile} is outside the study repository ${repository.root}${resolved}; it is not read`, {
      hint: `${plural} must lie inside ${where}; pass --allow-outside-paths or set ${ALLOW_OUTSIDE_PATHS_ENV}=1 to read it anyway`,
    });
    return true;
  };
  for (const ref of analysis.lists) {
    const absolute = path.resolve(studyDir, ref.file);
    const display = path.isAbsolute(ref.file) ? ref.file : path.join(path.dirname(file), ref.file);
    if (await refusedOutside(ref.file, absolute, ref.at, 'ID list')) continue;
    const check = await checkIdListFile(absolute, ref.kind, display);
    const unreadable = check.diagnostics.find((d) => d.code === 'SF6001');
    if (unreadable) {
      const notFound = unreadable.message.endsWith(': file not found');
      r.report('SF6001', ref.at, `${unreadable.message.replace(`ID list ${display}: `, `ID list ${ref.file}: `)}`, {
        hint: notFound ? `looked for ${display}; paths are relative to the study file` : 'an ID list is a regular text file, one ID per line',
      });
      continue;
    }
    r.diagnostics.push(...check.diagnostics);
    idLists.push({ targetGroup: ref.targetGroup, kind: ref.kind, file: absolute, count: check.count, sha256: check.sha256 });
  }
  for (const { key } of analysis.targetGroups) {
    const excluded = idLists.filter((l) => l.targetGroup === key && l.kind !== 'recontact').reduce((sum, l) => sum + l.count, 0);
    if (excluded > MAX_IDS_PER_LIST) {
      r.report('SF6008', ['target_groups', key, 'exclusions'], `target group \`${key}\` excludes ${excluded.toLocaleString('en-US')} IDs; the API holds at most 100,000 per target group`, {
        target: 'key',
        hint: 'respondent_ids and respondent_guids count together; shorten the lists',
      });
    }
  }

  const closeout = checked.data.closeout !== undefined && !checked.hasErrorWithin(['closeout']) ? await checkCloseoutFiles(checked.data.closeout, file, r, refusedOutside) : undefined;

  const all = [...r.diagnostics, ...sharedDiagnostics].sort(compareDiagnostics);
  const result: StudyFileResult = { diagnostics: all, studyId, studyIdRange, shared };
  if (hasErrors(all) || hasErrors(shared.diagnostics)) return result;
  const study = resolveStudy(checked.data, analysis, shared, studyDir);
  result.study = { file, study, idLists, ...(closeout ? { closeout } : {}), ...(shared.file ? { sharedFile: shared.file } : {}) };
  return result;
}

/**
 * Loads, checks and resolves one study file (and the shared.yaml of its directory). Never throws
 * for bad input: every problem is a diagnostic. A study with errors comes back without `study`.
 */
export async function loadStudyFile(file: string, options: LoadOptions = {}): Promise<{ study?: LoadedStudy; diagnostics: Diagnostic[] }> {
  const { study, diagnostics } = await loadStudyFileWithDetails(file, options);
  return study ? { study, diagnostics } : { diagnostics };
}
