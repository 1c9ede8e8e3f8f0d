// Supplier quota distribution of a draft not yet saved.
// - 2025-12-18, supplier-quota-distribution/draft (the reference's get_panel_distribution_draft): ONE profile and
//   the target group's completes goal; the answer is that profile (RequestDraftRegularProfileV3) with the goal
//   projected for each quota target: the completes goal split in proportion to the quotas (largest remainders, so
//   the goals add up to the completes goal). No supplier allocation in the request (the reference: not yet supported).
// - Older versions, panel-distribution/draft (sandbox-defined, the reference has no older shape): the filling goal and
//   each quota target's goal split over the chosen suppliers, each with a deterministic capacity weight per locale
//   (0.5-1.5).

import type { JsonRecord } from './json-shape';
import type { Profile } from './profile-types';
import { apportion } from './profile-quotas';
import { renderCurrentCondition } from './profile-version-translation';
import { unitHash } from './seeded-random';

/**
 * The profile of a distribution request (validated, so every quota target has its goal) in the request's shape, each
 * quota carrying only the projected `completes_goal` (the reference's nominal quota); a target without a quota stays
 * `{object: nominal, conditions}`.
 */
export function projectProfileGoals(profile: Profile, completesGoal: number, targetNames: readonly (string | undefined)[]): JsonRecord {
  const quotaTargets = profile.quotas_enabled ? profile.targets.filter((target) => target.quota.completes_goal !== null || target.quota.completes_goal_percentage !== null) : [];
  const weights = quotaTargets.map((target) => target.quota.completes_goal ?? target.quota.completes_goal_percentage ?? 0);
  const split = apportion(completesGoal, weights);
  const goals = new Map(quotaTargets.map((target, index) => [target.id, split[index]]));
  const out: JsonRecord = { object: profile.object };
  if (profile.object === 'blended' && profile.blended_type) out.blended_type = profile.blended_type;
  out.name = profile.name;
  out.quotas_enabled = profile.quotas_enabled;
  out.targets = profile.targets.map((target, index) => {
    const conditions = target.conditions.map(renderCurrentCondition);
    const goal = goals.get(target.id);
    if (goal === undefined) return { object: 'nominal', conditions };
    const name = targetNames[index];
    return { ...(name ? { name } : {}), conditions, quota: { ...(target.quota.name ? { name: target.quota.name } : {}), completes_goal: goal } };
  });
  return out;
}

export interface SupplierDistributionRequest {
  locale: string;
  fillingGoal: number;
  supplierIds: readonly number[];
  profiles: readonly Profile[];
}

export interface SupplierTargetShare {
  profile_id: string;
  target_id: string;
  completes_goal: number;
}

export interface SupplierShare {
  supplier_id: number;
  completes_goal: number;
  completes_goal_percentage: number;
  targets: SupplierTargetShare[];
}

export interface SupplierDistribution {
  filling_goal: number;
  suppliers: SupplierShare[];
}

/** Relative capacity of a supplier in a locale, in [0.5, 1.5). */
export const supplierCapacityWeight = (supplierId: number, locale: string): number => 0.5 + unitHash('supplier-capacity', supplierId, locale);

export function distributeSupplierQuotas(request: SupplierDistributionRequest): SupplierDistribution {
  const weights = request.supplierIds.map((id) => supplierCapacityWeight(id, request.locale));
  const totals = apportion(request.fillingGoal, weights);
  const perTarget = request.profiles
    .filter((profile) => profile.quotas_enabled)
    .flatMap((profile) => profile.targets
      .filter((target) => target.quota.completes_goal !== null)
      .map((target) => ({ profileId: profile.id, targetId: target.id, split: apportion(target.quota.completes_goal!, weights) })));
  return {
    filling_goal: request.fillingGoal,
    suppliers: request.supplierIds.map((supplierId, index) => ({
      supplier_id: supplierId,
      completes_goal: totals[index],
      completes_goal_percentage: request.fillingGoal > 0 ? Math.round((totals[index] / request.fillingGoal) * 10_000) / 100 : 0,
      targets: perTarget.map(({ profileId, targetId, split }) => ({ profile_id: profileId, target_id: targetId, completes_goal: split[index] })),
    })),
  };
}
