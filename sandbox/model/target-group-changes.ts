// The change objects a target-group-updated event carries (data.changes). Consumers ignore object
// values they do not know. The twelve allocations_* objects (names are the sandbox's; the spec gives
// only their number and grouping):
//   target-group level (4):  allocations_open_exchange_enabled_change, allocations_open_exchange_percentage_change,
//                            allocations_private_exchange_enabled_change, allocations_private_exchange_percentage_change
//   allocation-group level (8, each with allocation_group_id):
//     allocations_{open,private}_exchange_group_added, …_group_removed, …_group_percentage_change, …_group_suppliers_change
// plus private_exchange_cpi_change (supplier_id), status_change and field_change. The allocations_* and
// private_exchange_cpi_change objects exist from 2025-05-27; webhooks of older versions do not get them.

import { versionAtLeast, type ApiVersion } from './api-version';
import type { Money } from './money';

/** Sandbox shape of a target group's exchange allocations (what the allocations_* changes describe). */
export interface AllocationGroup {
  allocation_group_id: string;
  percentage: number;
  supplier_ids: number[];
}

export interface ExchangeAllocation {
  enabled: boolean;
  percentage: number;
  groups: AllocationGroup[];
}

export interface SupplierCpi {
  supplier_id: number;
  cpi: Money;
}

export interface ExchangeAllocations {
  open_exchange: ExchangeAllocation;
  private_exchange: ExchangeAllocation & { supplier_cpis: SupplierCpi[] };
}

export const ALLOCATION_CHANGE_OBJECTS = [
  'allocations_open_exchange_enabled_change',
  'allocations_open_exchange_percentage_change',
  'allocations_private_exchange_enabled_change',
  'allocations_private_exchange_percentage_change',
  'allocations_open_exchange_group_added',
  'allocations_open_exchange_group_removed',
  'allocations_open_exchange_group_percentage_change',
  'allocations_open_exchange_group_suppliers_change',
  'allocations_private_exchange_group_added',
  'allocations_private_exchange_group_removed',
  'allocations_private_exchange_group_percentage_change',
  'allocations_private_exchange_group_suppliers_change',
] as const;

export type AllocationChangeObject = (typeof ALLOCATION_CHANGE_OBJECTS)[number];

export type TargetGroupChange =
  | { object: 'status_change'; previous: string; current: string }
  | { object: 'field_change'; field: string; previous: unknown; current: unknown }
  | { object: 'private_exchange_cpi_change'; supplier_id: number; previous: Money | null; current: Money | null }
  | { object: AllocationChangeObject; allocation_group_id?: string; previous: unknown; current: unknown };

/** The change objects introduced in 2025-05-27. */
const isNewChangeObject = (change: TargetGroupChange): boolean =>
  change.object === 'private_exchange_cpi_change' || change.object.startsWith('allocations_');

/** The changes a webhook of `version` receives. */
export function changesForVersion(changes: readonly TargetGroupChange[], version: ApiVersion): TargetGroupChange[] {
  return versionAtLeast(version, '2025-05-27') ? [...changes] : changes.filter((change) => !isNewChangeObject(change));
}

export function emptyExchangeAllocations(): ExchangeAllocations {
  return {
    open_exchange: { enabled: true, percentage: 100, groups: [] },
    private_exchange: { enabled: false, percentage: 0, groups: [], supplier_cpis: [] },
  };
}

/** Every allocations_* and private_exchange_cpi_change object between two allocation states. */
export function diffExchangeAllocations(before: ExchangeAllocations, after: ExchangeAllocations): TargetGroupChange[] {
  const changes: TargetGroupChange[] = [];
  for (const exchange of ['open_exchange', 'private_exchange'] as const) {
    const previous = before[exchange];
    const current = after[exchange];
    if (previous.enabled !== current.enabled) changes.push({ object: `allocations_${exchange}_enabled_change`, previous: previous.enabled, current: current.enabled });
    if (previous.percentage !== current.percentage) changes.push({ object: `allocations_${exchange}_percentage_change`, previous: previous.percentage, current: current.percentage });
    const previousGroups = new Map(previous.groups.map((group) => [group.allocation_group_id, group]));
    const currentGroups = new Map(current.groups.map((group) => [group.allocation_group_id, group]));
    for (const [id, group] of currentGroups) {
      const old = previousGroups.get(id);
      if (!old) {
        changes.push({ object: `allocations_${exchange}_group_added`, allocation_group_id: id, previous: null, current: { percentage: group.percentage, supplier_ids: [...group.supplier_ids] } });
        continue;
      }
      if (old.percentage !== group.percentage) changes.push({ object: `allocations_${exchange}_group_percentage_change`, allocation_group_id: id, previous: old.percentage, current: group.percentage });
      if (!sameSet(old.supplier_ids, group.supplier_ids)) changes.push({ object: `allocations_${exchange}_group_suppliers_change`, allocation_group_id: id, previous: [...old.supplier_ids], current: [...group.supplier_ids] });
    }
    for (const [id, group] of previousGroups) {
      if (!currentGroups.has(id)) changes.push({ object: `allocations_${exchange}_group_removed`, allocation_group_id: id, previous: { percentage: group.percentage, supplier_ids: [...group.supplier_ids] }, current: null });
    }
  }
  const previousCpis = new Map(before.private_exchange.supplier_cpis.map((entry) => [entry.supplier_id, entry.cpi]));
  const currentCpis = new Map(after.private_exchange.supplier_cpis.map((entry) => [entry.supplier_id, entry.cpi]));
  for (const supplierId of [...new Set([...previousCpis.keys(), ...currentCpis.keys()])].sort((a, b) => a - b)) {
    const previous = previousCpis.get(supplierId) ?? null;
    const current = currentCpis.get(supplierId) ?? null;
    if (JSON.stringify(previous) !== JSON.stringify(current)) changes.push({ object: 'private_exchange_cpi_change', supplier_id: supplierId, previous, current });
  }
  return changes;
}

/** status_change and field_change objects for the named changed fields of a target group. */
export function diffTargetGroupFields(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]): TargetGroupChange[] {
  return fields.map((field) =>
    field === 'status'
      ? { object: 'status_change' as const, previous: String(before.status), current: String(after.status) }
      : { object: 'field_change' as const, field, previous: before[field] ?? null, current: after[field] ?? null },
  );
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && [...a].sort((x, y) => x - y).every((value, index) => value === [...b].sort((x, y) => x - y)[index]);
}
