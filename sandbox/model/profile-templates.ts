// The seeded catalogue of profile templates. A template is a ready-made set of regular profiles
// (2025-12-18 input shape, quotas as percentages) that a caller applies to a target group by id,
// alone or together with its own profiles. Template ids are UUIDs (the reference's ProfileTemplateId).

import { RuleViolation } from './rule-violation';

export interface ProfileTemplate {
  id: string;
  name: string;
  description: string;
  /** Regular profile inputs; ids are assigned on application. */
  profiles: readonly Record<string, unknown>[];
}

const selectionTarget = (text: string, questionId: number, options: string[], percentage: number) => ({
  text,
  conditions: options.map((option) => ({ object: 'selection', question_id: questionId, option })),
  quota: { name: text, completes_goal_percentage: percentage },
});

const rangeTarget = (min: number, max: number, percentage: number) => ({
  text: `${min}-${max}`,
  conditions: [{ object: 'range', question_id: 42, min, max }],
  quota: { name: `Age ${min}-${max}`, completes_goal_percentage: percentage },
});

const templates: ProfileTemplate[] = [
  {
    id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01',
    name: 'General population: age and gender',
    description: 'Nationally representative age bands and gender split.',
    profiles: [
      { object: 'regular', name: 'Age', quotas_enabled: true, targets: [rangeTarget(18, 34, 30), rangeTarget(35, 54, 35), rangeTarget(55, 99, 35)] },
      { object: 'regular', name: 'Gender', quotas_enabled: true, targets: [selectionTarget('Male', 43, ['1'], 49), selectionTarget('Female', 43, ['2'], 51)] },
    ],
  },
  {
    id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02',
    name: 'Parents of children under 18',
    description: 'Respondents with children under 18 in the household.',
    profiles: [{ object: 'regular', name: 'Children in household', quotas_enabled: false, targets: [selectionTarget('Children under 18', 7064, ['1'], 100)] }],
  },
  {
    id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b03',
    name: 'Household income quintiles',
    description: 'Even split over the five household income quintiles.',
    profiles: [
      {
        object: 'regular', name: 'Household income', quotas_enabled: true,
        targets: ['1', '2', '3', '4', '5'].map((option) => selectionTarget(`Income quintile ${option}`, 61076, [option], 20)),
      },
    ],
  },
  {
    id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b04',
    name: 'Working adults',
    description: 'Employed full-time, part-time or self-employed.',
    profiles: [{ object: 'regular', name: 'Employment', quotas_enabled: false, targets: [selectionTarget('Working', 2189, ['1', '2', '3'], 100)] }],
  },
];

const byId = new Map(templates.map((template) => [template.id, template]));

export function listProfileTemplates(): readonly ProfileTemplate[] {
  return templates;
}

export function findProfileTemplate(templateId: string): ProfileTemplate | undefined {
  return byId.get(templateId);
}

/**
 * The raw profile inputs of the given templates, each tagged with its template_id and a stable id
 * (`<template_id>-<n>`). Unknown ids give 422 unknown_profile_template.
 */
export function expandProfileTemplates(templateIds: readonly string[]): Record<string, unknown>[] {
  const unknown = templateIds.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    throw new RuleViolation(422, 'unknown_profile_template', `unknown profile template ${unknown.join(', ')}`,
      unknown.map((id) => ({ name: 'profile_template_ids', reason: `no profile template ${id}` })));
  }
  return [...new Set(templateIds)].flatMap((templateId) =>
    byId.get(templateId)!.profiles.map((profile, index) => ({ ...structuredClone(profile), id: `${templateId}-${index + 1}`, template_id: templateId })),
  );
}
