// Exchange allocations of target groups, as the sandbox models them for the target-group-updated
// allocation and CPI change objects (model/target-group-changes.ts). The public API has no endpoint to
// change them (the exchange side does), so the admin surface does:
//   GET /_sandbox/target-groups/{target_group_id}/exchange-allocations
//   PUT /_sandbox/target-groups/{target_group_id}/exchange-allocations  body: ExchangeAllocations
// A PUT emits `exchange_allocations.changed` with the change objects (the webhook module delivers them);
// the fielding simulation limits a group's suppliers to those of its enabled allocation groups.

import { ApiError, notFound } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { ok, type RequestContext, type RouteDefinition } from '../core/route-module';
import type { StateStore } from '../core/state-store';
import { isDecimalString, moneyFromMinorUnits, toMinorUnits } from '../model/money';
import { diffExchangeAllocations, emptyExchangeAllocations, type AllocationGroup, type ExchangeAllocations, type TargetGroupChange } from '../model/target-group-changes';

const SLICE = 'exchange_allocations';

export interface ExchangeAllocationsChanged {
  account_id: number;
  project_id: string;
  target_group_id: string;
  changes: TargetGroupChange[];
  occurred_at: string;
}

const slice = (store: StateStore) => store.slice<Record<string, ExchangeAllocations>>(SLICE, () => ({}));

export function exchangeAllocationsOf(store: StateStore, targetGroupId: string): ExchangeAllocations {
  return structuredClone(slice(store)[targetGroupId] ?? emptyExchangeAllocations());
}

/** Suppliers of the enabled exchanges' allocation groups (empty: the whole exchange). */
export function allocatedSupplierIds(store: StateStore, targetGroupId: string): number[] {
  const allocations = slice(store)[targetGroupId];
  if (!allocations) return [];
  const ids = new Set<number>();
  for (const exchange of [allocations.open_exchange, allocations.private_exchange]) {
    if (exchange.enabled) exchange.groups.forEach((group) => group.supplier_ids.forEach((id) => ids.add(id)));
  }
  return [...ids].sort((a, b) => a - b);
}

function readGroups(reader: ObjectReader | null | undefined, field: string, problems: { name: string; reason: string }[]): AllocationGroup[] {
  const list = reader?.array(field, { required: true, maxItems: 50 }) ?? [];
  const seen = new Set<string>();
  return list.flatMap((value, index) => {
    const group = ObjectReader.nested(value, `${reader!.name(field)}[${index}]`, problems);
    if (!group) return [];
    group.rejectUnknown(['allocation_group_id', 'percentage', 'supplier_ids']);
    const id = group.string('allocation_group_id', { required: true, maxLength: 64 });
    const percentage = group.number('percentage', { required: true, min: 0, max: 100 });
    const suppliers = group.array('supplier_ids', { required: true, maxItems: 100 }) ?? [];
    suppliers.forEach((supplier, position) => {
      if (typeof supplier !== 'number' || !Number.isInteger(supplier) || supplier < 1) problems.push({ name: `${group.name('supplier_ids')}[${position}]`, reason: 'must be a positive integer supplier id' });
    });
    if (id && seen.has(id)) group.fail('allocation_group_id', 'is used twice');
    if (id) seen.add(id);
    return id && percentage !== undefined && percentage !== null ? [{ allocation_group_id: id, percentage, supplier_ids: suppliers.filter((s): s is number => typeof s === 'number') }] : [];
  });
}

export function readExchangeAllocations(body: unknown): ExchangeAllocations {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['open_exchange', 'private_exchange']);
  const open = reader.object('open_exchange', { required: true });
  const priv = reader.object('private_exchange', { required: true });
  open?.rejectUnknown(['enabled', 'percentage', 'groups']);
  priv?.rejectUnknown(['enabled', 'percentage', 'groups', 'supplier_cpis']);
  const result = emptyExchangeAllocations();
  if (open) {
    result.open_exchange = { enabled: open.boolean('enabled', { required: true }) ?? false, percentage: open.number('percentage', { required: true, min: 0, max: 100 }) ?? 0, groups: readGroups(open, 'groups', reader.problems) };
  }
  if (priv) {
    const cpis = priv.array('supplier_cpis', { nullable: true, maxItems: 100 }) ?? [];
    const supplierCpis = cpis.flatMap((item, index) => {
      const entry = ObjectReader.nested(item, `private_exchange.supplier_cpis[${index}]`, reader.problems);
      if (!entry) return [];
      entry.rejectUnknown(['supplier_id', 'cpi']);
      const supplierId = entry.integer('supplier_id', { required: true, min: 1 });
      const cpi = entry.object('cpi', { required: true });
      cpi?.rejectUnknown(['value', 'currency_code', 'currency_scale']);
      const value = cpi?.string('value', { required: true, maxLength: 20 });
      const currency = cpi?.string('currency_code', { required: true });
      if (typeof value === 'string' && !isDecimalString(value)) cpi!.fail('value', 'must be a string-encoded decimal');
      if (typeof currency === 'string' && currency !== 'USD') cpi!.fail('currency_code', 'only USD');
      return supplierId && typeof value === 'string' && isDecimalString(value) ? [{ supplier_id: supplierId, cpi: moneyFromMinorUnits(toMinorUnits(Number(value))) }] : [];
    });
    result.private_exchange = {
      enabled: priv.boolean('enabled', { required: true }) ?? false,
      percentage: priv.number('percentage', { required: true, min: 0, max: 100 }) ?? 0,
      groups: readGroups(priv, 'groups', reader.problems),
      supplier_cpis: supplierCpis,
    };
  }
  reader.finish('The exchange allocations are invalid.');
  if (new Set(result.private_exchange.supplier_cpis.map((entry) => entry.supplier_id)).size !== result.private_exchange.supplier_cpis.length) {
    throw new ApiError(400, 'bad_request_error', 'A supplier has two CPIs.', { invalidParams: [{ name: 'private_exchange.supplier_cpis', reason: 'lists a supplier twice' }] });
  }
  return result;
}

function requireAnyTargetGroup(ctx: RequestContext) {
  const tg = ctx.store.data.target_groups[ctx.params.target_group_id];
  if (!tg) throw notFound(`Target group ${ctx.params.target_group_id} not found.`);
  return tg;
}

export const exchangeAllocationAdminRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/_sandbox/target-groups/{target_group_id}/exchange-allocations',
    handler: (ctx) => ok(exchangeAllocationsOf(ctx.store, requireAnyTargetGroup(ctx).id)),
  },
  {
    method: 'PUT',
    path: '/_sandbox/target-groups/{target_group_id}/exchange-allocations',
    handler: (ctx) => {
      const tg = requireAnyTargetGroup(ctx);
      const next = readExchangeAllocations(ctx.body);
      const changes = diffExchangeAllocations(exchangeAllocationsOf(ctx.store, tg.id), next);
      slice(ctx.store)[tg.id] = next;
      ctx.commit();
      if (changes.length > 0) {
        const event: ExchangeAllocationsChanged = { account_id: tg.account_id, project_id: tg.project_id, target_group_id: tg.id, changes, occurred_at: ctx.clock.iso() };
        ctx.events.emit('exchange_allocations.changed', event);
      }
      return ok({ ...structuredClone(next), changes });
    },
  },
];
