// supplier-quota-distribution (panel-distribution before 2025-12-18): how the sandbox would split a
// target group's filling goal, and each quota target's goal, over the chosen suppliers. Each supplier
// gets a deterministic capacity weight per locale (0.5-1.5); splits use largest remainders, so the
// parts always add up to the whole.

import type { Profile } from './profile-types';
import { apportion } from './profile-quotas';
import { unitHash } from './seeded-random';

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
