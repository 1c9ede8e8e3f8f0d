// Project requests and responses per API version (spec: Resources › Project, rename table; the reference's
// create_project / update_project / get_project_by_id / project_overview where the spec says "not shown").
// 2025-12-18: human_readable_id, no purchase_order_number. Older: human-readable-id, purchase_order_number.
// human_readable_id is assigned here (6 characters, unique in the account) and never taken from a request.
import { badRequest } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import type { SeededAccount } from '../core/seed-data';
import type { ProjectRecord, TargetGroupRecord } from '../core/state-records';
import { renamedReason, usesNewNames, type ApiVersion } from '../core/versioning';

/** The reference's UserID (format uuid). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ProjectInfo.project_customer_reference_number and TargetGroupCustomerReferenceNumber. */
export const CUSTOMER_REFERENCE = /^[a-zA-Z0-9\-_ ]*$/;
const READ_ONLY = ['id', 'account_id', 'created_at', 'updated_at', 'status', 'statistics'];

export interface ProjectInput {
  name: string;
  project_manager_id: string;
  project_customer_reference_number: string | null;
  /** Undefined in 2025-12-18 (the field does not exist there; the stored value is kept). */
  purchase_order_number: string | null | undefined;
}

export const humanReadableIdField = (version: ApiVersion) => (usesNewNames(version) ? 'human_readable_id' : 'human-readable-id');

/**
 * Reads a create (ProjectInfo) or update (ProjectInfoUpdate) body: `name` 5–128 characters (trimmed),
 * `project_manager_id` a UUID of the account's project managers, `project_customer_reference_number`
 * 3–128 characters of the reference's pattern (required on update, where leaving it out would delete it).
 * Every refusal is 400 `bad_request_error` with `invalid_params`.
 */
export function readProjectInput(body: unknown, version: ApiVersion, account: SeededAccount, mode: 'create' | 'update'): ProjectInput {
  const r = ObjectReader.body(body);
  const newNames = usesNewNames(version);
  const allowed = ['name', 'project_manager_id', 'project_customer_reference_number'];
  if (!newNames) allowed.push('purchase_order_number');
  const explain: Record<string, string> = Object.fromEntries(READ_ONLY.map((f) => [f, 'is read-only']));
  explain.human_readable_id = 'is assigned by the server and cannot be set';
  explain['human-readable-id'] = 'is assigned by the server and cannot be set';
  explain.business_unit_id = 'is not a project field (a target group carries its business unit)';
  if (newNames) explain.purchase_order_number = renamedReason('purchase_order_number', 'project_customer_reference_number');
  r.rejectUnknown(allowed, explain);
  const rawName = r.value.name;
  if (typeof rawName === 'string') r.value.name = rawName.trim();
  const name = r.string('name', { required: true, minLength: 5, maxLength: 128 });
  const manager = r.string('project_manager_id', { required: true, pattern: UUID, patternReason: 'must be a UUID' });
  const reference = r.string('project_customer_reference_number', {
    required: mode === 'update',
    nullable: mode === 'update',
    minLength: 3,
    maxLength: 128,
    pattern: CUSTOMER_REFERENCE,
    patternReason: 'may hold only letters, digits, -, _ and spaces',
  });
  const purchaseOrder = newNames ? undefined : r.string('purchase_order_number', { nullable: true, maxLength: 100 });
  r.finish('The project is invalid.');
  if (!account.project_manager_ids.some((id) => id.toLowerCase() === manager!.toLowerCase())) {
    throw badRequest(`Project manager ${manager} is not a user of account ${account.account_id}.`, [
      { name: 'project_manager_id', reason: `is not a project manager of account ${account.account_id}` },
    ]);
  }
  return {
    name: name!,
    project_manager_id: manager!,
    project_customer_reference_number: reference ?? null,
    purchase_order_number: newNames ? undefined : (purchaseOrder ?? null),
  };
}

const HRID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A 6-character id unique among `taken`, derived from the project's sequence number (deterministic). */
export function assignHumanReadableId(seq: number, taken: ReadonlySet<string>): string {
  for (let n = seq; ; n += 1) {
    let x = (n * 2_654_435_761) % 1_073_741_824;
    let id = '';
    for (let i = 0; i < 6; i += 1) {
      id += HRID_ALPHABET[x % 32];
      x = Math.floor(x / 32);
    }
    if (!taken.has(id)) return id;
  }
}

/** The project's ETag (reference: ETag header of get_project_by_id and create_project). */
export const projectEtag = (p: ProjectRecord) => `W/"${p.id}.${p.revision}"`;

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
    statistics: projectStatistics(groups),
    target_group_customer_reference_numbers: groups.map((tg) => tg.target_group_customer_reference_number).filter((r): r is string => r !== null),
  };
  if (p.project_customer_reference_number !== null) item.project_customer_reference_number = p.project_customer_reference_number;
  if (!usesNewNames(version)) item.purchase_order_number = p.purchase_order_number;
  return item;
}

/** ProjectStatistics over the project's target groups. */
export function projectStatistics(groups: readonly TargetGroupRecord[]): Record<string, number> {
  return {
    filling_goal: groups.reduce((n, tg) => n + tg.filling_goal, 0),
    current_completes: groups.reduce((n, tg) => n + tg.metrics.completes, 0),
    current_prescreens: groups.reduce((n, tg) => n + tg.metrics.prescreens, 0),
    incidence_rate_median: 0,
    length_of_interview_median_seconds: 0,
    conversion_rate_average: 0,
    drop_off_rate_average: 0,
  };
}

/** get_project_by_id (reference: ProjectDetails). */
export function renderProject(p: ProjectRecord, version: ApiVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    [humanReadableIdField(version)]: p.human_readable_id,
    name: p.name,
    project_manager_id: p.project_manager_id,
    account_id: p.account_id,
  };
  if (p.project_customer_reference_number !== null) out.project_customer_reference_number = p.project_customer_reference_number;
  if (!usesNewNames(version)) out.purchase_order_number = p.purchase_order_number;
  return out;
}
