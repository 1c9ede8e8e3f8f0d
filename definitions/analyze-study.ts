// Semantic rules of a study file, run on the typed model of every part that passed the structure
// check (a broken part is skipped, so one mistake does not cascade, and every other part is still
// checked in the same run).
import { didYouMeanHint } from './did-you-mean';
import type { CheckedDocument } from './document-checks';
import { isPlainObject, type DocPath } from './doc-path';
import type { TargetGroupListKind } from './id-list-file';
import { checkActivityExclusions } from './rules/activity-rules';
import { checkAllocations } from './rules/allocation-rules';
import { checkLaunchOrder, type LaunchOrderEntry } from './rules/launch-rules';
import { checkProfileDefinition, checkProfilesOfTargetGroup, type ProfileInUse } from './rules/profile-rules';
import { checkTargetGroup } from './rules/target-group-rules';
import { checkWebhooks } from './rules/webhook-rules';
import { checkGuards, checkNotifyOnlyGuards, checkQuotaGuards, type GuardReporter } from './rules/guard-rules';
import { checkSoftLaunch } from './rules/soft-launch-rules';
import { checkNotifyTargets, type DeclaredNotifyTarget } from './notify-targets';
import { checkActivityStatusesForProfile } from './rules/api-profile-rules';
import { DEFAULT_API_PROFILE, type ApiProfileName } from '../shared/api-profile';
import { readTemplates, type SharedDefinitions } from './shared-definitions';
import { pathKey } from './doc-path';
import type { FileReporter } from './reporter';
import { AllocationsSchema, CURRENT_API_VERSION, MergedTargetGroupSchema, MoneySchema, WebhookSchema, type MergedTargetGroup, type Profile, type Webhook } from './study-schema';

/** An ID list file named by a target group, as written in the study. */
export interface ListReference {
  targetGroup: string;
  kind: TargetGroupListKind;
  file: string;
  /** Path of the `file:` value. */
  at: DocPath;
}

export interface AnalyzedTargetGroup {
  key: string;
  tg: MergedTargetGroup;
  /** Profiles of the local templates it names, in order. */
  templateProfiles: Profile[];
  remoteTemplateIds: string[];
}

export interface StudyAnalysis {
  targetGroups: AnalyzedTargetGroup[];
  lists: ListReference[];
  /** Exclusion group name -> keys of target groups that join it through `exclusions.exclusion_groups`. */
  joins: Map<string, string[]>;
  /** The study's own `notify:` targets (shared.yaml's are in SharedDefinitions). */
  notify?: DeclaredNotifyTarget[];
}

/**
 * `defaults` merged under a target group: the target group wins; launch and timing merge field by field, and
 * guards guard by guard (a guard of the target group replaces the one of the same name in `defaults`).
 */
export function mergeDefaults(defaults: Record<string, unknown>, tg: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults, ...tg };
  for (const nested of ['launch', 'timing', 'guards']) {
    if (isPlainObject(defaults[nested]) || isPlainObject(tg[nested])) {
      merged[nested] = { ...(isPlainObject(defaults[nested]) ? defaults[nested] : {}), ...(isPlainObject(tg[nested]) ? tg[nested] : {}) };
    }
  }
  return merged;
}

/**
 * The project's manager: the study's `project_manager_id`, else the one in `defaults`, else the one every
 * target group names (after defaults). Undefined when none of these gives exactly one.
 */
export function projectManagerOf(data: Record<string, unknown>): string | undefined {
  if (typeof data.project_manager_id === 'string') return data.project_manager_id;
  const defaults = isPlainObject(data.defaults) ? data.defaults : {};
  if (typeof defaults.project_manager_id === 'string') return defaults.project_manager_id;
  const groups = isPlainObject(data.target_groups) ? Object.values(data.target_groups) : [];
  const named = new Set(groups.map((tg) => (isPlainObject(tg) && typeof tg.project_manager_id === 'string' ? tg.project_manager_id : undefined)));
  const [only] = named;
  return named.size === 1 ? only : undefined;
}

/** Study-level fields a target group inherits below `defaults`: the project manager and the study's guards. */
function studyLevelSettings(data: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(typeof data.project_manager_id === 'string' ? { project_manager_id: data.project_manager_id } : {}),
    ...(isPlainObject(data.guards) ? { guards: data.guards } : {}),
  };
}

/** Reports a code at a path once: a study's or defaults' guard is checked with every target group that has it. */
function onceReporter(r: FileReporter): GuardReporter {
  const seen = new Set<string>();
  return {
    report(code, docPath, message, options) {
      const key = `${code} ${pathKey(docPath)}`;
      if (!seen.has(key)) {
        seen.add(key);
        r.report(code, docPath, message, options);
      }
    },
  };
}

/** The fields of a merged target group the guard and money rules read (rules/guard-rules.ts GuardRuleFields). */
const GUARD_RULE_FIELDS = ['launch', 'guards', 'start_fielding_at', 'end_fielding_at'] as const;
const GuardRuleFieldsSchema = MergedTargetGroupSchema.pick({ launch: true, guards: true, start_fielding_at: true, end_fielding_at: true });

const LIST_KINDS: { kind: TargetGroupListKind; at: string[] }[] = [
  { kind: 'respondent_ids', at: ['exclusions', 'respondent_ids'] },
  { kind: 'respondent_guids', at: ['exclusions', 'respondent_guids'] },
  { kind: 'recontact', at: ['recontact'] },
];

/** `profile`: the connection profile whose API the study is checked against (webhook events, spec-only fields). */
export function analyzeStudy(doc: CheckedDocument, shared: SharedDefinitions, profile: ApiProfileName = DEFAULT_API_PROFILE): StudyAnalysis {
  const { data, reporter: r } = doc;
  const analysis: StudyAnalysis = { targetGroups: [], lists: [], joins: new Map() };
  const rawGroups = isPlainObject(data.target_groups) ? data.target_groups : undefined;
  const keys = rawGroups ? Object.keys(rawGroups) : [];
  if (rawGroups && keys.length === 0) {
    r.report('SF4009', ['target_groups'], 'the study has no target groups', { hint: 'add at least one under target_groups' });
  }
  const apiVersion = typeof data.api_version === 'string' ? data.api_version : CURRENT_API_VERSION;
  const defaults = isPlainObject(data.defaults) ? data.defaults : {};
  const defaultsOk = ['defaults', 'project_manager_id', 'guards'].every((at) => !doc.hasErrorWithin([at]));
  const budgetParsed = doc.hasErrorWithin(['budget']) ? undefined : MoneySchema.safeParse(data.budget);
  const budget = budgetParsed?.success ? budgetParsed.data : undefined;
  const guardReporter = onceReporter(r);
  const notifyOnlyGuards: { name: string; at: DocPath }[] = [];
  const notifyOnly = (name: string, at: DocPath) => {
    if (!notifyOnlyGuards.some((g) => pathKey(g.at) === pathKey(at))) notifyOnlyGuards.push({ name, at });
  };
  const studyLevel = studyLevelSettings(data);
  if (defaultsOk && isPlainObject(defaults.allocations)) {
    const allocations = AllocationsSchema.safeParse(defaults.allocations);
    if (allocations.success) checkAllocations(allocations.data, ['defaults', 'allocations'], r);
  }
  const managerCheckable = ['project_manager_id', 'project', 'defaults', 'target_groups'].every((at) => !doc.hasErrorWithin([at])) && keys.length > 0;
  if (managerCheckable && projectManagerOf(data) === undefined) {
    r.report('SF4015', ['project'], 'the project has no project manager', {
      target: 'key',
      hint: 'set project_manager_id (a user id, UUID) at the top of the study file; target groups that name none take it too',
    });
  }

  const localTemplates = readTemplates(doc);
  for (const name of localTemplates.keys()) {
    if (shared.templates.has(name)) {
      r.report('SF5005', ['profile_templates', name], `profile template \`${name}\` is declared here and in ${shared.file}`, {
        target: 'key',
        hint: 'rename one of them; a study may not shadow a shared name',
      });
    }
  }
  const localGroups = isPlainObject(data.exclusion_groups) ? data.exclusion_groups : {};
  for (const name of Object.keys(localGroups)) {
    if (shared.exclusionGroups.has(name)) {
      r.report('SF5005', ['exclusion_groups', name], `exclusion group \`${name}\` is declared here and in ${shared.file}`, {
        target: 'key',
        hint: 'rename one of them; a study may not shadow a shared name',
      });
    }
  }
  const groupNames = [...new Set([...Object.keys(localGroups), ...shared.exclusionGroups.keys()])];
  const templateNames = [...new Set([...localTemplates.keys(), ...shared.templates.keys()])];

  const launches: LaunchOrderEntry[] = [];
  const movedFrom = new Map<string, string>();
  for (const key of keys) {
    const raw = rawGroups![key];
    const from = isPlainObject(raw) && typeof raw.moved_from === 'string' ? raw.moved_from : undefined;
    if (from === undefined) continue;
    const at = ['target_groups', key, 'moved_from'];
    if (from === key) {
      r.report('SF4010', at, `target group \`${key}\` names itself in moved_from`, { hint: 'remove moved_from' });
    } else if (keys.includes(from)) {
      r.report('SF4010', at, `moved_from names \`${from}\`, which is still a target group of this study`, {
        hint: 'moved_from is for a key that was renamed away: remove the old target group or the moved_from',
      });
    } else if (movedFrom.has(from)) {
      r.report('SF4010', at, `target groups \`${movedFrom.get(from)}\` and \`${key}\` both move from \`${from}\``, {
        hint: 'only one target group can take over a renamed one',
      });
    } else {
      movedFrom.set(from, key);
    }
  }

  for (const key of keys) {
    const raw = rawGroups![key];
    const self: DocPath = ['target_groups', key];
    if (!isPlainObject(raw)) continue;
    const origin = (...fieldPath: string[]): DocPath => {
      const holds = (source: unknown) => {
        let node = source;
        for (const seg of fieldPath) {
          if (!isPlainObject(node) || !Object.hasOwn(node, seg)) return false;
          node = node[seg];
        }
        return true;
      };
      if (holds(raw)) return [...self, ...fieldPath];
      if (holds(defaults)) return ['defaults', ...fieldPath];
      if (holds(studyLevel)) return fieldPath;
      return [...self, ...fieldPath];
    };
    const merged = mergeDefaults(mergeDefaults(studyLevel, defaults), raw);
    if (!defaultsOk || doc.hasErrorWithin(self)) {
      // A target group (or defaults) with a structure error is not checked as a whole; the guard and money rules
      // still run when every field they read parsed, so their errors (SF4505, …) come in the same run as it.
      const fieldsBroken = GUARD_RULE_FIELDS.some((field) => [[...self, field], ['defaults', field], [field]].some((at) => doc.hasErrorWithin(at)));
      const fields = fieldsBroken ? undefined : GuardRuleFieldsSchema.safeParse(Object.fromEntries(GUARD_RULE_FIELDS.filter((f) => Object.hasOwn(merged, f)).map((f) => [f, merged[f]])));
      if (fields?.success) for (const name of checkGuards({ key, tg: fields.data, origin, budget, r: guardReporter })) notifyOnly(name, origin('guards', name));
      continue;
    }
    const parsed = MergedTargetGroupSchema.safeParse(merged);
    if (!parsed.success) continue;
    const tg = parsed.data;
    checkTargetGroup({ key, tg, origin, r });
    for (const name of checkGuards({ key, tg, origin, budget, r: guardReporter })) notifyOnly(name, origin('guards', name));
    checkSoftLaunch({ key, tg, origin, r: guardReporter });
    launches.push({ key, launch: tg.launch, origin });
    // Allocations from `defaults` were checked once, above.
    if (tg.allocations && Object.hasOwn(raw, 'allocations')) checkAllocations(tg.allocations, [...self, 'allocations'], r);

    const inUse: ProfileInUse[] = [];
    const templateProfiles: Profile[] = [];
    const remoteTemplateIds: string[] = [];
    tg.profile_templates?.forEach((ref, j) => {
      const at = [...self, 'profile_templates', j];
      if (typeof ref !== 'string') {
        remoteTemplateIds.push(ref.id);
        if (remoteTemplateIds.length > 1) {
          r.report('SF4116', at, `a target group takes one profile template in the API; this is another one`, {
            hint: 'keep one `{id: …}` template; declare the other profiles under profile_templates or profiles',
          });
        }
        return;
      }
      const template = localTemplates.get(ref) ?? shared.templates.get(ref);
      if (!template) {
        r.report('SF5003', at, `unknown profile template \`${ref}\``, {
          hint: didYouMeanHint(ref, templateNames, 'templates') ?? 'declare it under profile_templates here or in shared.yaml, or write {id: …} for a template in the API',
        });
        return;
      }
      for (const profile of template.profiles ?? []) {
        inUse.push({ profile, at, template: ref });
        templateProfiles.push(profile);
      }
    });
    tg.profiles?.forEach((profile, i) => {
      checkProfileDefinition(profile, [...self, 'profiles', i], r);
      inUse.push({ profile, at: [...self, 'profiles', i] });
    });
    checkProfilesOfTargetGroup(inUse, tg.filling_goal, apiVersion, r, remoteTemplateIds.length);
    const hasQuotas = remoteTemplateIds.length > 0 || inUse.some(({ profile }) => profile.quotas_enabled && profile.targets.some((t) => t.quota !== undefined));
    checkQuotaGuards(key, tg.guards, hasQuotas, origin, guardReporter);

    tg.exclusions?.exclusion_groups?.forEach((group, g) => {
      if (!groupNames.includes(group)) {
        r.report('SF5002', [...self, 'exclusions', 'exclusion_groups', g], `unknown exclusion group \`${group}\``, {
          hint: didYouMeanHint(group, groupNames, 'exclusion groups') ?? 'declare it under exclusion_groups here or in shared.yaml',
        });
        return;
      }
      analysis.joins.set(group, [...(analysis.joins.get(group) ?? []), key]);
    });
    if (tg.exclusions?.activity) {
      checkActivityExclusions(tg.exclusions.activity, [...self, 'exclusions', 'activity'], keys, r);
      checkActivityStatusesForProfile(tg.exclusions.activity, [...self, 'exclusions', 'activity'], profile, r);
    }

    for (const { kind, at } of LIST_KINDS) {
      const ref = kind === 'recontact' ? tg.recontact : tg.exclusions?.[kind];
      if (ref) analysis.lists.push({ targetGroup: key, kind, file: ref.file, at: [...self, ...at, 'file'] });
    }
    analysis.targetGroups.push({ key, tg, templateProfiles, remoteTemplateIds });
  }

  checkLaunchOrder(launches, keys, r);

  for (const [name, group] of Object.entries(localGroups)) {
    const at = ['exclusion_groups', name];
    if (!isPlainObject(group) || doc.hasErrorWithin(at)) continue;
    const listed = Array.isArray(group.target_groups) ? (group.target_groups as string[]) : [];
    listed.forEach((member, m) => {
      if (!keys.includes(member)) {
        r.report('SF5001', [...at, 'target_groups', m], `unknown target group \`${member}\` in exclusion group \`${name}\``, {
          hint: didYouMeanHint(member, keys, 'target groups of this study'),
        });
      }
    });
    const joinedInFile = keys.some((key) => {
      const raw = rawGroups![key];
      const groups = isPlainObject(raw) && isPlainObject(raw.exclusions) ? raw.exclusions.exclusion_groups : undefined;
      return Array.isArray(groups) && groups.includes(name);
    });
    if (listed.length === 0 && !joinedInFile) {
      r.report('SF5006', at, `exclusion group \`${name}\` has no target groups`, {
        target: 'key',
        hint: 'list members under its target_groups, or name it in a target group\'s exclusions.exclusion_groups',
      });
    }
  }

  if (Array.isArray(data.webhooks) && !doc.hasErrorWithin(['webhooks'])) {
    const webhooks: { webhook: Webhook; index: number }[] = [];
    data.webhooks.forEach((raw, index) => {
      const parsed = WebhookSchema.safeParse(raw);
      if (parsed.success) webhooks.push({ webhook: parsed.data, index });
    });
    checkWebhooks(webhooks, r, profile);
  }
  if (!doc.hasErrorWithin(['notify'])) analysis.notify = checkNotifyTargets(data, r, shared.notify);
  const listeners = [...(shared.notify ?? []), ...(analysis.notify ?? [])];
  // A notify block with an error is not checked further: whether it would listen is unknown, so no warning.
  const listens = doc.hasErrorWithin(['notify']) || listeners.some((t) => t.events.includes('guard_tripped'));
  checkNotifyOnlyGuards(notifyOnlyGuards, listens, r);
  return analysis;
}
