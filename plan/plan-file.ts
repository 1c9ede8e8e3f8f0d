// Plan files (`plan --out plan.sfplan`, `apply plan.sfplan`): what a plan relied on and what it programs, and the
// pure checks `apply` makes of it before any write. A plan file holds per study the revision of its file, the
// profile, the scope, the planned actions and program, and a fingerprint of every resource the plan read (the ETag
// the exchange gave where it gives one, else a SHA-256 of the canonical reading; `absent` for one it did not find).
// Its content carries a checksum, so a truncated or edited file is refused by name. No secret and no respondent ID
// is in it: ID lists are the references the plan holds already.
import { sha256Hex } from '../shared/sha256';
import { canonicalJson } from './compare';
import { isWrite } from './plan-study';
import type { ApplyScope } from './scope';
import type { StudyProgram } from './steps';
import type { DesiredStudy, ObservedStudy, PlannedAction } from './types';

/** The format tag of a plan file; another tag is refused. */
export const PLAN_FILE_FORMAT = 'studyflow-plan/v1';

/** A resource's fingerprint when the plan found none of it. */
export const ABSENT = 'absent';

/** Fingerprints by resource: `project`, `target_group:<key>`, `fielding_run:<key>`, `fielding_assistant:<key>`, `exclusion_group:<name>`, `webhook:<url>`. */
export type Fingerprints = Record<string, string>;

/** One study of a plan file. */
export interface PlannedStudyFile {
  /** The study file as the plan named it (relative to where the plan ran). */
  file: string;
  accountId: string;
  studyId: string;
  /** The content hash of the study file's desired state (DesiredStudy.revision). */
  revision: string;
  /** The planned actions and the program apply runs (plan/program.ts). */
  actions: PlannedAction[];
  program: StudyProgram;
  fingerprints: Fingerprints;
}

/** What a plan file holds (its checksum is over exactly this). */
export interface PlanFileContent {
  /** The connection profile the plan was made against (`sandbox`, `cint`). */
  profile: string;
  /** The partial apply the plan was made for (plan/scope.ts); absent: the whole study. */
  scope?: ApplyScope;
  createdAt: string;
  studies: PlannedStudyFile[];
}

export interface PlanFile {
  format: typeof PLAN_FILE_FORMAT;
  /** `sha256:<hex>` of the canonical JSON of `content`. */
  checksum: string;
  content: PlanFileContent;
}

/** Why a plan file cannot be used: not JSON (or cut short), not a plan file, its checksum does not match. */
export class PlanFileError extends Error {
  constructor(
    readonly reason: 'unreadable' | 'format' | 'checksum',
    message: string,
  ) {
    super(message);
    this.name = 'PlanFileError';
  }
}

function checksumOf(content: PlanFileContent): string {
  return `sha256:${sha256Hex(canonicalJson(content))}`;
}

/** The text of a plan file for `content`. */
export function writePlanFile(content: PlanFileContent): string {
  const file: PlanFile = { format: PLAN_FILE_FORMAT, checksum: checksumOf(content), content };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Reads a plan file's text. @throws PlanFileError when it is not JSON, not of this format, or its checksum does not match its content. */
export function readPlanFile(text: string): PlanFileContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError('unreadable', `not a complete plan file (truncated or not JSON: ${(error as Error).message})`);
  }
  const file = parsed as Partial<PlanFile> | null;
  if (!file || typeof file !== 'object' || file.format !== PLAN_FILE_FORMAT) {
    throw new PlanFileError('format', `not a plan file of format ${PLAN_FILE_FORMAT} (format: ${JSON.stringify(file && typeof file === 'object' ? file.format : undefined) ?? 'none'})`);
  }
  if (!file.content || typeof file.content !== 'object' || !Array.isArray(file.content.studies) || typeof file.checksum !== 'string') {
    throw new PlanFileError('format', 'the plan file has no content or no checksum');
  }
  const actual = checksumOf(file.content);
  if (actual !== file.checksum) throw new PlanFileError('checksum', `the plan file was edited or cut short: its checksum ${file.checksum} does not match its content (${actual})`);
  return file.content;
}

/** The fingerprint of a reading without an ETag: the SHA-256 of its canonical JSON. */
function bodyHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/**
 * The fingerprint of every resource a plan read for a study: the fielding run and the fielding-assistant assignment
 * by the ETag the exchange gave (else their body's hash), the target group's other readings, the project, each
 * exclusion group and webhook by the hash of what was read. What varies without a write (completes so far, the
 * time of reading, a guard's hold that only studyflow knows) is no part of a fingerprint. `declared`: the keys
 * the study declares, fingerprinted `absent` when the exchange holds none (a create relies on that).
 */
export function fingerprintsOf(observed: ObservedStudy, declared: { targetGroups: readonly string[]; exclusionGroups: readonly string[]; webhooks: readonly string[] }): Fingerprints {
  const prints: Fingerprints = { project: observed.project ? bodyHash(observed.project) : ABSENT };
  const tgKeys = [...new Set([...declared.targetGroups, ...Object.keys(observed.targetGroups)])].sort();
  for (const key of tgKeys) {
    const tg = observed.targetGroups[key];
    if (!tg) {
      prints[`target_group:${key}`] = ABSENT;
      continue;
    }
    const { completes: _completes, guardHold: _hold, fieldingRun, fieldingAssistant, ...rest } = tg;
    prints[`target_group:${key}`] = bodyHash(rest);
    if (fieldingRun) prints[`fielding_run:${key}`] = fieldingRun.etag ? `etag:${fieldingRun.etag}` : bodyHash(fieldingRun);
    if (fieldingAssistant) prints[`fielding_assistant:${key}`] = fieldingAssistant.etag ? `etag:${fieldingAssistant.etag}` : bodyHash(fieldingAssistant.assignment);
  }
  for (const name of [...new Set([...declared.exclusionGroups, ...Object.keys(observed.exclusionGroups)])].sort()) {
    const group = observed.exclusionGroups[name];
    prints[`exclusion_group:${name}`] = group ? bodyHash({ ...group, targetGroupIds: [...group.targetGroupIds].sort() }) : ABSENT;
  }
  for (const url of [...new Set([...declared.webhooks, ...Object.keys(observed.webhooks ?? {})])].sort()) {
    const hook = observed.webhooks?.[url];
    prints[`webhook:${url}`] = hook ? bodyHash(hook) : ABSENT;
  }
  return prints;
}

/** The resources of one target group (its body, its fielding run, its fielding-assistant assignment). */
const TARGET_GROUP_RESOURCES = ['target_group', 'fielding_run', 'fielding_assistant'] as const;

/**
 * The resources the planned actions write (or rely on to write): the project, each webhook and exclusion group
 * written, and every resource of a target group with a write (a membership writes its group and its target group).
 */
export function writtenResources(actions: readonly PlannedAction[]): string[] {
  const written = new Set<string>();
  for (const a of actions.filter(isWrite)) {
    if (a.resource === 'project') written.add('project');
    else if (a.resource === 'webhook') written.add(`webhook:${a.key}`);
    else if (a.resource === 'exclusion_group' && a.group === undefined) written.add(`exclusion_group:${a.key}`);
    else {
      if (a.group !== undefined) written.add(`exclusion_group:${a.group}`);
      for (const r of TARGET_GROUP_RESOURCES) written.add(`${r}:${a.key}`);
    }
  }
  return [...written].sort();
}

/** A resource the program writes whose fingerprint moved since the plan. */
export interface MovedResource {
  resource: string;
  planned: string;
  now: string;
}

/**
 * The resources among `written` whose fingerprint now differs from the planned one (a resource neither side read is
 * `absent` on both). Empty: the plan still holds and apply may run it.
 */
export function movedResources(planned: Fingerprints, now: Fingerprints, written: readonly string[]): MovedResource[] {
  return written
    .map((resource) => ({ resource, planned: planned[resource] ?? ABSENT, now: now[resource] ?? ABSENT }))
    .filter((m) => m.planned !== m.now);
}

/** The key a resource name is about (`target_group:us` -> `us`; `project` -> undefined). */
function keyOf(resource: string): string | undefined {
  const at = resource.indexOf(':');
  return at < 0 ? undefined : resource.slice(at + 1);
}

/** One action as a line of the drift: `update target_group us: <reason>` with its changes. */
function actionLine(a: PlannedAction): string {
  const changes = (a.changes ?? []).map((c) => `${c.field} ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`).join(', ');
  return `${a.kind} ${a.resource} ${a.key}${changes ? ` (${changes})` : ''}`;
}

/**
 * What changed since the plan, for the moved resources: per moved resource its fingerprints, then the actions of
 * the same resources that the plan had and a plan made now has not (`- planned: …`) and the other way round
 * (`+ now: …`).
 */
export function driftLines(moved: readonly MovedResource[], plannedActions: readonly PlannedAction[], nowActions: readonly PlannedAction[]): string[] {
  const lines: string[] = [];
  for (const m of moved) lines.push(`${m.resource}: ${m.planned === ABSENT ? 'absent when planned' : `planned ${m.planned}`}, ${m.now === ABSENT ? 'absent now' : `now ${m.now}`}`);
  const keys = new Set(moved.map((m) => keyOf(m.resource) ?? ''));
  const concerns = (a: PlannedAction) => keys.has(a.key) || (a.group !== undefined && keys.has(a.group)) || (a.resource === 'project' && moved.some((m) => m.resource === 'project'));
  const planned = plannedActions.filter(concerns).map(actionLine);
  const now = nowActions.filter(concerns).map(actionLine);
  for (const line of planned) if (!now.includes(line)) lines.push(`- planned: ${line}`);
  for (const line of now) if (!planned.includes(line)) lines.push(`+ now: ${line}`);
  return lines;
}

/**
 * What the study workflow checks of a revision applied from a plan file, after it observed and planned and before
 * any write: the resources its plan writes whose fingerprint moved since the plan file's (a change in the exchange
 * between the client's check and the workflow's reading). Empty: the workflow writes with the readings the plan
 * relied on (the fielding run's and fielding assistant's ETags among them, sent as If-Match).
 */
export function movedSincePlan(desired: DesiredStudy, observed: ObservedStudy, actions: readonly PlannedAction[], planned: Fingerprints): MovedResource[] {
  const declared = { targetGroups: desired.targetGroups.map((t) => t.key), exclusionGroups: desired.exclusionGroups.map((g) => g.name), webhooks: desired.webhooks.map((w) => w.url) };
  return movedResources(planned, fingerprintsOf(observed, declared), writtenResources(actions));
}
