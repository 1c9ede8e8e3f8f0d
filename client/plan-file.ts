// Plan files in the study client: `plan --out FILE` writes what the plan relied on and programs (plan/plan-file.ts),
// and `apply FILE.sfplan` checks it before anything is written: the same revision of each study file and the same
// profile (else PlanFileMismatchError, exit 1), the file intact (PlanFileError, exit 1), and, planned again now
// against the exchange, no fingerprint moved of a resource the program writes and the same program (else
// StalePlanError, exit 5, with what changed since the plan). Then apply runs the plan's scope, whose program the
// study workflow plans from the same state.
import fs from 'node:fs';
import path from 'node:path';
import { loadApiConfig } from '../api/http/api-config';
import { withDevDefaults } from '../api/http/api-environment';
import { canonicalJson } from '../plan/compare';
import { PlanFileError, driftLines, fingerprintsOf, movedResources, readPlanFile, writePlanFile, writtenResources, type Fingerprints, type MovedResource, type PlanFileContent } from '../plan/plan-file';
import type { ApplyScope } from '../plan/scope';
import { StudyClientError } from './errors';
import type { PlannedStudy, StudiesPlan } from './plan-studies';
import type { PreparedStudy } from './prepare-studies';
import type { StudyClient } from './study-client';

/** The suffix that makes `apply FILE` take a plan file. */
export const PLAN_FILE_SUFFIX = '.sfplan';

/** A plan file that cannot be read (cut short, edited, not a plan file): exit 1. */
export class PlanFileUnreadableError extends StudyClientError {
  constructor(file: string, cause: PlanFileError) {
    super(`${file}: ${cause.message}`, 1);
    this.name = 'PlanFileUnreadableError';
  }
}

/** A plan file of another revision of a study file, or made against another profile: exit 1, nothing written. */
export class PlanFileMismatchError extends StudyClientError {
  constructor(message: string) {
    super(message, 1);
    this.name = 'PlanFileMismatchError';
  }
}

/** The exchange changed since the plan under a resource its program writes: exit 5, nothing written. */
export class StalePlanError extends StudyClientError {
  constructor(
    readonly file: string,
    readonly moved: MovedResource[],
    readonly drift: string[],
  ) {
    super(`${file}: the exchange changed since the plan (${moved.length ? moved.map((m) => m.resource).join(', ') : 'the program differs'}); nothing was written: plan again${drift.map((line) => `\n  ${line}`).join('')}`, 5);
    this.name = 'StalePlanError';
  }
}

/** The profile the API settings of `env` choose (`sandbox`, `cint`). */
export function apiProfileOf(env: NodeJS.ProcessEnv): string {
  return loadApiConfig(withDevDefaults(env)).profile;
}

function declaredOf(study: PreparedStudy) {
  const { desired } = study;
  return { targetGroups: desired.targetGroups.map((t) => t.key), exclusionGroups: desired.exclusionGroups.map((g) => g.name), webhooks: desired.webhooks.map((w) => w.url) };
}

/** The content of a plan file for `planned` (the files relative to `cwd`). @throws StudyClientError for an offline plan or one made without the API. */
export function planFileContent(planned: StudiesPlan, options: { cwd: string; profile: string; scope?: ApplyScope; now?: Date }): PlanFileContent {
  if (planned.offline || planned.apiUnreachable) throw new StudyClientError('a plan file needs the exchange read: plan --out cannot be offline or without the API', 1);
  return {
    profile: options.profile,
    ...(options.scope && ((options.scope.only?.length ?? 0) > 0 || (options.scope.except?.length ?? 0) > 0) ? { scope: options.scope } : {}),
    createdAt: (options.now ?? new Date()).toISOString(),
    studies: planned.studies.map((s: PlannedStudy) => ({
      file: path.relative(options.cwd, s.loaded.file) || s.loaded.file,
      accountId: s.desired.accountId,
      studyId: s.desired.studyId,
      revision: s.desired.revision,
      actions: s.plan.actions,
      program: s.program,
      fingerprints: fingerprintsOf(s.observed, declaredOf(s)),
    })),
  };
}

/** Writes the plan file (through a temporary file, so a reader never sees half of it). */
export function savePlanFile(file: string, content: PlanFileContent): void {
  fs.writeFileSync(`${file}.tmp`, writePlanFile(content));
  fs.renameSync(`${file}.tmp`, file);
}

/** Reads a plan file. @throws PlanFileUnreadableError */
export function loadPlanFile(file: string): PlanFileContent {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new StudyClientError(`${file}: cannot read the plan file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 1);
  }
  try {
    return readPlanFile(text);
  } catch (error) {
    if (error instanceof PlanFileError) throw new PlanFileUnreadableError(file, error);
    throw error;
  }
}

/** The study files a plan file names, as `prepare` takes them (relative to `cwd`). */
export function planFileStudyPaths(content: PlanFileContent, cwd: string): string[] {
  return content.studies.map((s) => path.resolve(cwd, s.file));
}

/** Refuses a plan file of another profile or of another revision of a study file (or of other studies). @throws PlanFileMismatchError */
export function checkPlanFileMatches(content: PlanFileContent, prepared: readonly PreparedStudy[], profile: string, planFile: string): void {
  if (content.profile !== profile) throw new PlanFileMismatchError(`${planFile}: planned against profile ${content.profile}, the settings now choose ${profile}; nothing was written`);
  for (const planned of content.studies) {
    const study = prepared.find((p) => p.desired.accountId === planned.accountId && p.desired.studyId === planned.studyId);
    if (!study) throw new PlanFileMismatchError(`${planFile}: study ${planned.studyId} (account ${planned.accountId}) is not in ${planned.file} any more; nothing was written`);
    if (study.desired.revision !== planned.revision) {
      throw new PlanFileMismatchError(`${planFile}: planned revision ${planned.revision} of ${planned.file}, the file is now revision ${study.desired.revision}; nothing was written: plan again`);
    }
  }
}

/**
 * Compares the plan file with a plan made now: for each study, the resources its program writes whose fingerprint
 * moved, and whether the program is still the planned one. @throws StalePlanError naming what changed.
 */
export function checkPlanFileHolds(content: PlanFileContent, now: StudiesPlan, planFile: string): void {
  for (const planned of content.studies) {
    const current = now.studies.find((s) => s.desired.accountId === planned.accountId && s.desired.studyId === planned.studyId);
    if (!current) continue;
    const moved = movedResources(planned.fingerprints, fingerprintsOf(current.observed, declaredOf(current)), writtenResources(planned.actions));
    const sameProgram = canonicalJson(current.program) === canonicalJson(planned.program);
    if (moved.length || !sameProgram) {
      const drift = driftLines(moved, planned.actions, current.plan.actions);
      throw new StalePlanError(planFile, moved, sameProgram ? drift : [...drift, 'the program a plan makes now differs from the planned one']);
    }
  }
}

/**
 * What `apply FILE.sfplan` applies: the plan file read, its study files prepared, matched (revision, profile) and
 * planned again now; the prepared studies and the plan's scope when the plan still holds.
 * @throws PlanFileUnreadableError, PlanFileMismatchError (exit 1), StalePlanError (exit 5): nothing written.
 */
export async function preparePlanFile(
  client: StudyClient,
  planFile: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; allowOutsidePaths?: boolean },
): Promise<{ prepared: (PreparedStudy & { plannedFingerprints?: Fingerprints })[]; diagnostics: Awaited<ReturnType<StudyClient['prepare']>>['diagnostics']; scope?: ApplyScope }> {
  const content = loadPlanFile(planFile);
  const { prepared, diagnostics } = await client.prepare(planFileStudyPaths(content, options.cwd), { allowOutsidePaths: options.allowOutsidePaths });
  if (diagnostics.some((d) => d.severity === 'error')) return { prepared, diagnostics };
  checkPlanFileMatches(content, prepared, apiProfileOf(options.env), planFile);
  const now = await client.plan(prepared, { scope: content.scope });
  checkPlanFileHolds(content, now, planFile);
  // The workflow checks the fingerprints again after its own reading, before any write (ApplyRequest.planned).
  const fingerprintsOf = (p: PreparedStudy) => content.studies.find((s) => s.accountId === p.desired.accountId && s.studyId === p.desired.studyId)?.fingerprints;
  const withPlan = prepared.map((p) => ({ ...p, plannedFingerprints: fingerprintsOf(p) }));
  return { prepared: withPlan, diagnostics, ...(content.scope ? { scope: content.scope } : {}) };
}
