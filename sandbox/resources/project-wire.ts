// Project requests and responses per API version (spec: Resources › Project; rename table).
// 2025-12-18: human_readable_id, no purchase_order_number. Older: human-readable-id, purchase_order_number.
import { unprocessable } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import type { SeededAccount } from '../core/seed-data';
import type { ProjectRecord, TargetGroupRecord } from '../core/state-records';
import { notYetReason, renamedReason, usesNewNames, type ApiVersion } from '../core/versioning';

export const HUMAN_READABLE_ID = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const READ_ONLY = ['id', 'created_at', 'updated_at'];

export interface ProjectInput {
  name: string;
  human_readable_id: string | undefined;
  project_customer_reference_number: string | null;
  /** Undefined in 2025-12-18 (the field does not exist there; the stored value is kept). */
  purchase_order_number: string | null | undefined;
  business_unit_id: number;
}

export const humanReadableIdField = (version: ApiVersion) => (usesNewNames(version) ? 'human_readable_id' : 'human-readable-id');

/** Reads a create/update body; throws 400 (shape) or 422 (business unit outside the account). */
export function readProjectInput(body: unknown, version: ApiVersion, account: SeededAccount): ProjectInput {
  const r = ObjectReader.body(body);
  const newNames = usesNewNames(version);
  const hrid = humanReadableIdField(version);
  const allowed = ['name', hrid, 'project_customer_reference_number', 'business_unit_id'];
  if (!newNames) allowed.push('purchase_order_number');
  const explain: Record<string, string> = Object.fromEntries(READ_ONLY.map((f) => [f, 'is read-only']));
  if (newNames) {
    explain['human-readable-id'] = renamedReason('human-readable-id', 'human_readable_id');
    explain.purchase_order_number = 'was removed in 2025-12-18; use project_customer_reference_number';
  } else {
    explain.human_readable_id = notYetReason('human_readable_id', 'human-readable-id');
  }
  r.rejectUnknown(allowed, explain);
  const name = r.string('name', { required: true, maxLength: 255 });
  const humanReadableId = r.string(hrid, { maxLength: 100, pattern: HUMAN_READABLE_ID, patternReason: 'must be snake_case (a-z, 0-9, single underscores)' });
  const reference = r.string('project_customer_reference_number', { nullable: true, maxLength: 100 });
  const purchaseOrder = newNames ? undefined : r.string('purchase_order_number', { nullable: true, maxLength: 100 });
  const businessUnitId = r.integer('business_unit_id', { required: true, min: 1, allowNumericString: true });
  r.finish('The project is invalid.');
  if (!account.business_unit_ids.includes(businessUnitId!)) {
    throw unprocessable('unknown_reference', `Business unit ${businessUnitId} does not belong to account ${account.account_id}.`, [
      { name: 'business_unit_id', reason: `is not a business unit of account ${account.account_id}` },
    ]);
  }
  return {
    name: name!,
    human_readable_id: humanReadableId ?? undefined,
    project_customer_reference_number: reference ?? null,
    purchase_order_number: newNames ? undefined : (purchaseOrder ?? null),
    business_unit_id: businessUnitId!,
  };
}

/** snake_case of a project name, used when no human_readable_id is given. */
export function deriveHumanReadableId(name: string, fallback: string): string {
  const snake = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^([0-9])/, 'p_$1')
    .slice(0, 100)
    .replace(/_+$/, '');
  return snake.length > 0 ? snake : fallback;
}

/** An item of the project list (reference: ProjectListItem): the project plus its status and statistics. */
export function renderProjectListItem(p: ProjectRecord, version: ApiVersion, groups: readonly TargetGroupRecord[]): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: p.id,
    [humanReadableIdField(version)]: p.human_readable_id,
    account_id: p.account_id,
    name: p.name,
    status: 'active',
    last_activity_at: groups.reduce((latest, tg) => (tg.updated_at > latest ? tg.updated_at : latest), p.updated_at),
    target_group_count: groups.length,
    statistics: {
      filling_goal: groups.reduce((n, tg) => n + tg.filling_goal, 0),
      current_completes: groups.reduce((n, tg) => n + tg.metrics.completes, 0),
      current_prescreens: groups.reduce((n, tg) => n + tg.metrics.prescreens, 0),
      incidence_rate_median: 0,
      length_of_interview_median_seconds: 0,
      conversion_rate_average: 0,
      drop_off_rate_average: 0,
    },
    target_group_customer_reference_numbers: groups.map((tg) => tg.target_group_customer_reference_number).filter((r): r is string => r !== null),
  };
  if (p.project_customer_reference_number !== null) item.project_customer_reference_number = p.project_customer_reference_number;
  if (!usesNewNames(version)) item.purchase_order_number = p.purchase_order_number;
  return item;
}

export function renderProject(p: ProjectRecord, version: ApiVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    [humanReadableIdField(version)]: p.human_readable_id,
    name: p.name,
    project_customer_reference_number: p.project_customer_reference_number,
    business_unit_id: p.business_unit_id,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
  if (!usesNewNames(version)) out.purchase_order_number = p.purchase_order_number;
  return out;
}
