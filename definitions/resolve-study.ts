// Builds the typed Study the planner works on: defaults merged, local templates expanded into
// profiles, list paths absolute, exclusion-group membership from both directions.
import path from 'node:path';
import { projectManagerOf, type StudyAnalysis } from './analyze-study';
import { isPlainObject } from './doc-path';
import type { SharedDefinitions } from './shared-definitions';
import { notifyTargetsOf } from './notify-targets';
import { resolvedCloseout } from './closeout-files';
import { guardsInForce } from './rules/guard-rules';
import { ResolvedTargetGroupSchema, StudySchema, type Study, type TargetGroupSpec } from './study-schema';

/** `data` is the checked file data of a study without errors; `studyDir` is absolute. */
export function resolveStudy(data: Record<string, unknown>, analysis: StudyAnalysis, shared: SharedDefinitions, studyDir: string): Study {
  const studyId = String(data.study);
  const project = data.project as Record<string, string>;
  const localGroups = (isPlainObject(data.exclusion_groups) ? data.exclusion_groups : {}) as Record<string, { name?: string; target_groups?: string[] }>;
  const listedIn = (key: string) => Object.entries(localGroups).filter(([, g]) => g.target_groups?.includes(key)).map(([name]) => name);
  const absolute = (ref: { file: string } | undefined) => (ref ? { file: path.resolve(studyDir, ref.file) } : undefined);

  const targetGroups: Record<string, TargetGroupSpec> = {};
  for (const { key, tg, templateProfiles, remoteTemplateIds } of analysis.targetGroups) {
    const { profile_templates: _templates, exclusions, recontact, profiles, guards, soft_launch: softLaunch, ...rest } = tg;
    const groups = [...new Set([...(exclusions?.exclusion_groups ?? []), ...listedIn(key)])];
    targetGroups[key] = ResolvedTargetGroupSchema.parse({
      ...rest,
      profiles: [...templateProfiles, ...(profiles ?? [])],
      remote_profile_template_ids: remoteTemplateIds,
      exclusions: {
        ...exclusions,
        respondent_ids: absolute(exclusions?.respondent_ids),
        respondent_guids: absolute(exclusions?.respondent_guids),
        exclusion_groups: groups,
      },
      recontact: absolute(recontact),
      guards: Object.fromEntries(guardsInForce(guards)),
      // `false` switched off the soft launch of defaults.
      soft_launch: softLaunch || undefined,
    });
  }

  const exclusionGroups: Study['exclusion_groups'] = {};
  for (const [name, group] of Object.entries(localGroups)) {
    const members = [...new Set([...(group.target_groups ?? []), ...(analysis.joins.get(name) ?? [])])];
    exclusionGroups[name] = { name: group.name ?? name, shared: false, target_groups: members };
  }
  for (const [name, joiners] of analysis.joins) {
    const declared = shared.exclusionGroups.get(name);
    if (declared && !exclusionGroups[name]) exclusionGroups[name] = { name: declared.name, shared: true, target_groups: joiners };
  }

  return StudySchema.parse({
    format: data.format,
    api_version: data.api_version,
    study: studyId,
    account: data.account,
    business_unit: data.business_unit,
    project: {
      name: project.name,
      project_manager_id: projectManagerOf(data),
      project_customer_reference_number: project.project_customer_reference_number ?? studyId,
    },
    target_groups: targetGroups,
    exclusion_groups: exclusionGroups,
    webhooks: data.webhooks,
    removed_target_groups: data.removed_target_groups,
    notify: notifyTargetsOf(shared.notify ?? [], analysis.notify ?? []),
    budget: data.budget,
    closeout: resolvedCloseout(data.closeout, studyDir),
  });
}
