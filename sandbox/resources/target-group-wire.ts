// Target group requests and responses per API version (spec: Resources › Target group; rename table).
// 2025-12-18: pricing value rate_card, client_cost_per_interview_note, no `name` in the list response.
// Older versions: ratecard, client_cpi, name everywhere.
import { ApiError, badRequest, type InvalidParam } from '../core/api-error';
import { ISO_TIMESTAMP, ObjectReader, isHttpUrl } from '../core/input-validation';
import type { SeededAccount } from '../core/seed-data';
import type { ActivityExclusionRecord, AllocationGroupRecord, AllocationsRecord, SandboxStateData, TargetGroupRecord } from '../core/state-records';
import { notYetReason, renamedReason, usesNewNames, type ApiVersion } from '../core/versioning';
import { UUID } from './project-wire';
import { readRequestMoney, type RequestMoney } from '../model/money';
import { checkActivityExclusionRules, readActivityExclusionItems, renderActivityExclusion } from './activity-exclusions';
import { goalFieldOf, type SandboxDialect } from '../core/dialect';

export const STUDY_TYPES = ['adhoc', 'tracker', 'recontact'] as const;
export const PRICING_MODELS = ['rate_card', 'dynamic'] as const;
export const TARGET_GROUP_TYPES = ['rate_card', 'custom'] as const;
export const RECONTACT_TEMPLATE_ID = 'recontact-global';
export const RECONTACT_RSID_VARIABLE = '[%RECONTACT_RSID%]';
export const MAX_FILLING_GOAL = 10_000;
export const MAX_LENGTH_OF_INTERVIEW_MINUTES = 180;
export const LOCALE = /^[a-z]{2,3}_[A-Za-z]{2}$/;
const TEMPLATE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** The client's cost per interview: money from 2025-12-18; a note in text (or a number) before. */
export type ClientCpiNote = RequestMoney | string;
const READ_ONLY = ['id', 'project_id', 'status', 'fielding_run_id', 'end_fielding_at', 'created_at', 'updated_at'];

export interface TargetGroupInput {
  name: string | null;
  locale: string | null;
  live_url: string | null;
  test_url: string | null;
  expected_incidence_rate: number;
  expected_length_of_interview_minutes: number;
  filling_goal: number;
  project_manager_id: string;
  business_unit_id: number | null;
  fielding_specification: { start_at: string; end_at: string } | null;
  fielding_assistant_assignment: Record<string, unknown> | null;
  collects_pii: boolean;
  study_type: string;
  /** Given before 2025-12-18 only; from 2025-12-18 the business unit's pricing model applies (an update keeps it). */
  pricing_model?: string;
  type?: string;
  client_cost_per_interview_note: ClientCpiNote | null;
  target_group_customer_reference_number: string | null;
  allocations: AllocationsRecord;
  respondent_activity_exclusions: ActivityExclusionRecord[];
}

export const noteField = (version: ApiVersion) => (usesNewNames(version) ? 'client_cost_per_interview_note' : 'client_cpi');
/** The pricing_model/type value `rate_card` as the version spells it. */
export const pricingValueOut = (value: string, version: ApiVersion) => (value === 'rate_card' && !usesNewNames(version) ? 'ratecard' : value);

/**
 * Reads a draft create/update body (same shape for both). Throws 400 for shape problems and for references
 * outside the account (project manager, business unit, exclusion items: the reference's create_target_group and
 * update_target_group document 400, no 422), 403 for disabled exclusion statuses. The wanted completes are the
 * dialect's goal field (spec: filling_goal; reference: completes_goal); the other one is refused by name.
 */
export function readTargetGroupInput(body: unknown, version: ApiVersion, account: SeededAccount, data: SandboxStateData, dialect: SandboxDialect): TargetGroupInput {
  const r = ObjectReader.body(body);
  const goalField = goalFieldOf(dialect, version);
  const newNames = usesNewNames(version);
  const note = noteField(version);
  const explain: Record<string, string> = Object.fromEntries(READ_ONLY.map((f) => [f, 'is read-only']));
  explain.profiles = newNames ? 'is set in profiling ({profile_adjustment_type, profiles, template_id?})' : 'is set with the profile operations (apply-profiles), not on the target group';
  if (!newNames) explain.profiling = notYetReason('profiling', 'apply-profiles');
  explain.study_type = 'is study_type_code';
  if (newNames) {
    // The reference's draft request has neither: a target group's pricing model comes from its business unit.
    explain.pricing_model = 'is not a field of the draft request (the business unit sets the pricing model)';
    explain.type = 'is not a field of the draft request';
  }
  if (newNames) explain.client_cpi = renamedReason('client_cpi', 'client_cost_per_interview_note');
  else explain.client_cost_per_interview_note = notYetReason('client_cost_per_interview_note', 'client_cpi');
  explain[goalField === 'filling_goal' ? 'completes_goal' : 'filling_goal'] = `is ${goalField} in this request`;
  r.rejectUnknown(
    [
      'name', 'locale', 'live_url', 'test_url', 'expected_incidence_rate', 'expected_length_of_interview_minutes',
      goalField, 'project_manager_id', 'business_unit_id', 'fielding_specification', 'fielding_assistant_assignment', 'collects_pii', 'study_type_code', ...(newNames ? [] : ['pricing_model', 'type']), note,
      'target_group_customer_reference_number', 'allocations', 'respondent_activity_exclusions', ...(newNames ? ['profiling'] : []),
    ],
    explain,
  );
  // The reference's CreateDraftTargetGroupRequest / UpdateDraftTargetGroupRequest require these from 2025-12-18
  // beside the spec's required fields; older versions keep the spec's list.
  const referenceRequired = newNames ? { required: true } : { nullable: true };
  const name = r.string('name', { ...referenceRequired, maxLength: 255 });
  const locale = r.string('locale', { ...referenceRequired, pattern: LOCALE, patternReason: 'must be a locale such as en_US, en_us or eng_us (language_country)' });
  const url = { nullable: true, maxLength: 2048, pattern: /^https?:\/\/\S+$/, patternReason: 'must be an absolute http(s) URL' };
  const liveUrl = r.string('live_url', url);
  const testUrl = r.string('test_url', url);
  if (liveUrl && !isHttpUrl(liveUrl)) r.fail('live_url', 'must be an absolute http(s) URL');
  if (testUrl && !isHttpUrl(testUrl)) r.fail('test_url', 'must be an absolute http(s) URL');
  const required = { required: true };
  const incidence = r.number('expected_incidence_rate', { ...required, exclusiveMin: 0, max: 1 });
  const loi = r.integer('expected_length_of_interview_minutes', { ...required, min: 1, max: MAX_LENGTH_OF_INTERVIEW_MINUTES });
  const fillingGoal = r.integer(goalField, { ...required, min: 1, max: MAX_FILLING_GOAL });
  const pmId = r.string('project_manager_id', { ...required, pattern: UUID, patternReason: 'must be a UUID (reference: UserID)' });
  const collectsPii = r.boolean('collects_pii', required);
  const businessUnitId = r.integer('business_unit_id', { ...referenceRequired, min: 1, allowNumericString: true });
  let fielding: { start_at: string; end_at: string } | null = null;
  const window = r.object('fielding_specification', referenceRequired);
  if (window) {
    window.rejectUnknown(['start_at', 'end_at']);
    const timestamp = { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 date-time' };
    const startAt = window.string('start_at', timestamp);
    const endAt = window.string('end_at', timestamp);
    if (startAt && endAt) {
      if (Date.parse(startAt) >= Date.parse(endAt)) window.fail('end_at', 'must be after start_at');
      else fielding = { start_at: startAt, end_at: endAt };
    }
  }
  const studyType = r.oneOf('study_type_code', STUDY_TYPES) ?? 'adhoc';
  // From 2025-12-18 neither is taken (refused above as unknown); the business unit's pricing model applies.
  const pricingModel = newNames ? undefined : readPricingValue(r, 'pricing_model', PRICING_MODELS, newNames);
  const type = newNames ? undefined : readPricingValue(r, 'type', TARGET_GROUP_TYPES, newNames);
  // An amount of money (2025-12-18, reference: TargetGroupClientCpiMonetaryAmountRequestModel; older versions
  // take it too); before 2025-12-18 `client_cpi` may also be a text note or a number.
  let noteValue: ClientCpiNote | null | undefined;
  const given = r.value[note];
  if (typeof given === 'number' && !newNames && Number.isFinite(given)) noteValue = String(given);
  else if (typeof given === 'string' && !newNames) noteValue = r.string(note, { nullable: true, maxLength: 500 });
  else if (typeof given === 'string' || typeof given === 'number') r.fail(note, 'must be an amount of money {value, currency_code} (reference: MonetaryAmountRequestModel)');
  else noteValue = readRequestMoney(r, note);
  const reference = r.string('target_group_customer_reference_number', { nullable: true, maxLength: 100 });
  let templateId: string | null = null;
  let openExchange: AllocationsRecord['open_exchange_allocations'] = null;
  let privateExchange: AllocationsRecord['private_exchange_allocations'] = null;
  const allocations = r.object('allocations', referenceRequired);
  if (allocations) {
    allocations.rejectUnknown(['template_id', 'open_exchange_allocations', 'private_exchange_allocations']);
    templateId = allocations.string('template_id', { nullable: true, pattern: TEMPLATE_ID, patternReason: 'must be a template id (letters, digits, - and _)' }) ?? null;
    const open = allocations.object('open_exchange_allocations', { nullable: true });
    if (open) {
      open.rejectUnknown(['blocked_supplier_ids', 'exchange_min_percentage', 'exchange_max_percentage', 'groups']);
      const min = open.integer('exchange_min_percentage', { required: true, min: 0, max: 100 });
      const max = open.integer('exchange_max_percentage', { required: true, min: 0, max: 100 });
      if (min != null && max != null && min > max) open.fail('exchange_min_percentage', 'must not be above exchange_max_percentage');
      const blocked = readSupplierIds(open, 'blocked_supplier_ids');
      const groups = readAllocationGroups(open, 'suppliers');
      if (min != null && max != null && blocked && groups) openExchange = { blocked_supplier_ids: blocked, exchange_min_percentage: min, exchange_max_percentage: max, groups };
    }
    const priv = allocations.object('private_exchange_allocations', { nullable: true });
    if (priv) {
      priv.rejectUnknown(['blocked_supplier_ids', 'groups']);
      const blocked = readSupplierIds(priv, 'blocked_supplier_ids');
      const groups = readAllocationGroups(priv, 'supplier_id');
      if (blocked && groups) privateExchange = { blocked_supplier_ids: blocked, groups };
    }
  }
  let assistant: Record<string, unknown> | null = null;
  const modules = r.object('fielding_assistant_assignment', referenceRequired);
  if (modules) {
    modules.rejectUnknown(['pricing', 'quota_overlay', 'pacing', 'soft_launch']);
    const overlay = modules.object('quota_overlay', { nullable: true });
    if (overlay) {
      overlay.rejectUnknown(['prevent_overfill', 'balance_fill']);
      overlay.boolean('prevent_overfill', { required: true });
      overlay.boolean('balance_fill', { required: true });
    }
    const soft = modules.object('soft_launch', { nullable: true });
    if (soft) {
      soft.rejectUnknown(['end_at', 'filling_goal_percentage', 'demographics_strictness_percentage']);
      soft.string('end_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 date-time' });
      soft.integer('filling_goal_percentage', { required: true, min: 1, max: 100 });
      soft.integer('demographics_strictness_percentage', { required: true, min: 0, max: 100 });
    }
    const pricing = modules.object('pricing', { nullable: true });
    if (pricing) pricing.oneOf('type', ['dynamic', 'rate_card'] as const, { required: true });
    const pacing = modules.object('pacing', { nullable: true });
    if (pacing) pacing.oneOf('type', ['linear', 'adaptive', 'gemini'] as const, { required: true });
    assistant = structuredClone(modules.value);
  }
  const rawExclusions = r.array('respondent_activity_exclusions', { nullable: true });
  const exclusions = rawExclusions ? readActivityExclusionItems(rawExclusions, 'respondent_activity_exclusions', r.problems, null, dialect) : [];
  checkRecontactRules(r, studyType, liveUrl ?? null, templateId);
  r.finish('The target group is invalid.');
  if (!account.project_manager_ids.some((id) => id.toLowerCase() === pmId!.toLowerCase())) {
    throw badRequest(`Project manager ${pmId} does not belong to account ${account.account_id}.`, [
      { name: 'project_manager_id', reason: `is not a project manager of account ${account.account_id}` },
    ]);
  }
  if (businessUnitId != null && !account.business_unit_ids.includes(businessUnitId)) {
    throw badRequest(`Business unit ${businessUnitId} does not belong to account ${account.account_id}.`, [
      { name: 'business_unit_id', reason: `is not a business unit of account ${account.account_id}` },
    ]);
  }
  checkActivityExclusionRules(exclusions, 'respondent_activity_exclusions', account, data);
  return {
    business_unit_id: businessUnitId ?? null,
    fielding_specification: fielding,
    fielding_assistant_assignment: assistant,
    name: name ?? null,
    locale: locale ?? null,
    live_url: liveUrl ?? null,
    test_url: testUrl ?? null,
    expected_incidence_rate: incidence!,
    expected_length_of_interview_minutes: loi!,
    filling_goal: fillingGoal!,
    project_manager_id: pmId!,
    collects_pii: collectsPii!,
    study_type: studyType,
    ...(newNames ? {} : { pricing_model: pricingModel ?? 'rate_card', type: type ?? 'rate_card' }),
    client_cost_per_interview_note: noteValue ?? null,
    target_group_customer_reference_number: reference ?? null,
    allocations: { template_id: templateId, open_exchange_allocations: openExchange, private_exchange_allocations: privateExchange },
    respondent_activity_exclusions: exclusions,
  };
}

/** SupplierIds: an array of supplier id strings. */
function readSupplierIds(r: ObjectReader, field: string): string[] | undefined {
  const raw = r.array(field, { required: true });
  if (!raw) return undefined;
  if (raw.some((id) => typeof id !== 'string' || id === '')) return void r.fail(field, 'must be an array of supplier ids (strings)');
  return raw as string[];
}

/** The groups of an exchange: `{group_name, min_percentage, max_percentage}` and `suppliers` (open) or `supplier_id` (private). */
function readAllocationGroups(r: ObjectReader, members: 'suppliers' | 'supplier_id'): AllocationGroupRecord[] | undefined {
  const raw = r.array('groups', { required: true });
  if (!raw) return undefined;
  const groups: AllocationGroupRecord[] = [];
  raw.forEach((item, i) => {
    const g = ObjectReader.nested(item, `${r.name('groups')}[${i}]`, r.problems);
    if (!g) return;
    g.rejectUnknown(['group_name', 'min_percentage', 'max_percentage', members]);
    const name = g.string('group_name', { required: true });
    const min = g.integer('min_percentage', { required: true, min: 0, max: 100 });
    const max = g.integer('max_percentage', { required: true, min: 0, max: 100 });
    if (min != null && max != null && min > max) g.fail('min_percentage', 'must not be above max_percentage');
    const group: AllocationGroupRecord = { group_name: name ?? '', min_percentage: min ?? 0, max_percentage: max ?? 0 };
    if (members === 'suppliers') group.suppliers = readSupplierIds(g, 'suppliers') ?? [];
    else group.supplier_id = g.string('supplier_id', { required: true }) ?? '';
    groups.push(group);
  });
  return groups;
}

function readPricingValue(r: ObjectReader, field: string, values: readonly string[], newNames: boolean): string | undefined {
  if (!r.has(field) || r.value[field] === null) return undefined;
  const v = r.value[field];
  if (newNames && v === 'ratecard') return void r.fail(field, 'value ratecard was renamed to rate_card in 2025-12-18');
  if (!newNames && v === 'rate_card') return void r.fail(field, 'value rate_card is the 2025-12-18 spelling; this version uses ratecard');
  const accepted = values.map((x) => (x === 'rate_card' && !newNames ? 'ratecard' : x));
  if (typeof v !== 'string' || !accepted.includes(v)) return void r.fail(field, `must be one of ${accepted.join(', ')}`);
  return v === 'ratecard' ? 'rate_card' : v;
}

function checkRecontactRules(r: ObjectReader, studyType: string, liveUrl: string | null, templateId: string | null): void {
  if (studyType === 'recontact') {
    if (liveUrl && !liveUrl.includes(RECONTACT_RSID_VARIABLE)) {
      r.fail('live_url', `must contain ${RECONTACT_RSID_VARIABLE} for a recontact study`);
    }
    if (templateId !== RECONTACT_TEMPLATE_ID) {
      r.fail('allocations.template_id', `must be ${RECONTACT_TEMPLATE_ID} (the recontact global allocations template) for a recontact study`);
    }
  } else if (templateId === RECONTACT_TEMPLATE_ID) {
    r.fail('allocations.template_id', `${RECONTACT_TEMPLATE_ID} is only for study_type_code recontact`);
  }
}

/** Refuses profiling on recontact studies (spec: further profiling on recontact surveys is not supported). */
export function assertProfilingAllowed(tg: TargetGroupRecord): void {
  if (tg.study_type === 'recontact') {
    throw new ApiError(422, 'profiling_not_supported', `Target group ${tg.id} is a recontact study; profiling is not supported on recontact studies.`);
  }
}

/**
 * Pluggable pieces of the target group rendering (part 2 sets `profiles` to rename per version, and
 * `profiling`, the 2025-12-18 ProfilingResponse).
 */
export const targetGroupRenderHooks: { profiles: (profiles: unknown[], version: ApiVersion) => unknown; profiling: (tg: TargetGroupRecord) => unknown } = {
  profiles: (profiles) => profiles,
  profiling: () => null,
};

/**
 * A DRAFT as get_target_group answers it (reference: FetchTargetGroupResponse + DraftTargetGroupLinks): no id,
 * status or fielding run (those live in overview, details and fielding-runs once launched); the goal as the
 * reference's reads name it, `completes_goal` (the spec names only the draft body's `filling_goal`); the
 * allocations in the answer's shape (suppliers as objects). Beyond the reference, in the spec's dialect only: `type`
 * (Endpoints › Target groups: get returns pricing_model, type, client_cost_per_interview_note) and the exclusion
 * items' respondent_statuses. Fields without a value are left out (the reference marks none nullable).
 */
export function renderTargetGroup(tg: TargetGroupRecord, version: ApiVersion, dialect: SandboxDialect): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: tg.name,
    business_unit_id: tg.business_unit_id,
    locale: tg.locale,
    collects_pii: tg.collects_pii,
    study_type_code: tg.study_type,
    pricing_model: pricingValueOut(tg.pricing_model, version),
    ...(dialect.readsCarryType ? { type: pricingValueOut(tg.type, version) } : {}),
    [noteField(version)]: tg.client_cost_per_interview_note,
    project_manager_id: tg.project_manager_id,
    fielding_specification: tg.fielding_specification ? { ...tg.fielding_specification } : null,
    completes_goal: tg.filling_goal,
    expected_length_of_interview_minutes: tg.expected_length_of_interview_minutes,
    expected_incidence_rate: tg.expected_incidence_rate,
    respondent_activity_exclusions: tg.respondent_activity_exclusions.map((item) => renderActivityExclusion(item, dialect)),
    live_url: tg.live_url,
    test_url: tg.test_url,
    fielding_assistant_assignment: tg.fielding_assistant_assignment ? structuredClone(tg.fielding_assistant_assignment) : {},
    created_at: tg.created_at,
    allocations: renderAllocations(tg.allocations),
    // 2025-12-18: the draft's profiling (ProfilingResponse); before: the older versions' profiles list.
    ...(usesNewNames(version) ? { profiling: targetGroupRenderHooks.profiling(tg) } : { profiles: targetGroupRenderHooks.profiles(tg.profiles, version) }),
    target_group_customer_reference_number: tg.target_group_customer_reference_number,
  };
  for (const key of Object.keys(out)) if (out[key] === null && key !== 'target_group_customer_reference_number') delete out[key];
  if (tg.test_url) out.links = { test_client_survey: tg.test_url };
  return out;
}

/** SupplierIds (text) as the answer's SupplierResponse `{id}` (an integer where the id is one). */
const supplierOut = (id: string) => ({ id: /^\d+$/.test(id) ? Number(id) : id });

/** The allocations in GetDraftSupplyAllocationGroupResponse's shape, plus the spec's template id when set. */
function renderAllocations(a: AllocationsRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.template_id) out.template_id = a.template_id;
  const open = a.open_exchange_allocations;
  if (open) {
    out.open_exchange_allocations = {
      exchange_min_percentage: open.exchange_min_percentage,
      exchange_max_percentage: open.exchange_max_percentage,
      blocked_suppliers: open.blocked_supplier_ids.map(supplierOut),
      groups: open.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, suppliers: (g.suppliers ?? []).map(supplierOut) })),
    };
  }
  const priv = a.private_exchange_allocations;
  if (priv) {
    out.private_exchange_allocations = {
      blocked_suppliers: priv.blocked_supplier_ids.map(supplierOut),
      groups: priv.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, supplier: supplierOut(g.supplier_id ?? '') })),
    };
  }
  return out;
}

/**
 * A launched target group's details (reference: get_target_group_details, TargetGroupDetails + TargetGroupLinks).
 * `business_unit_id` is text here; the sandbox keeps no industry, so `industry_code` and `industry_lockout_code`
 * carry the reference's defaults (`other`, `no_lock_out`).
 */
export function renderTargetGroupDetails(tg: TargetGroupRecord, accountName: string, version: ApiVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: tg.id,
    name: tg.name ?? tg.id,
    account_name: accountName,
    business_unit_id: tg.business_unit_id === null ? '' : String(tg.business_unit_id),
    project_manager_id: tg.project_manager_id,
    study_type_code: tg.study_type,
    industry_code: 'other',
    locale: tg.locale ?? '',
    completes_goal: tg.filling_goal,
    expected_length_of_interview_minutes: tg.expected_length_of_interview_minutes,
    expected_incidence_rate: tg.expected_incidence_rate,
    industry_lockout_code: 'no_lock_out',
    [noteField(version)]: tg.client_cost_per_interview_note,
    collects_pii: tg.collects_pii,
    live_url: tg.live_url,
    test_url: tg.test_url,
    created_at: tg.created_at,
    target_group_customer_reference_number: tg.target_group_customer_reference_number,
  };
  for (const key of Object.keys(out)) if (out[key] === null && key !== 'target_group_customer_reference_number') delete out[key];
  const links: Record<string, string> = {};
  if (tg.test_url) links.test_client_survey = tg.test_url;
  if (Object.keys(links).length) out.links = links;
  return out;
}

/**
 * An item of the target group list (reference: TargetGroupsListItem). In the spec's dialect `name` is left out
 * from 2025-12-18 on (Resources › Target group); the reference (the cint dialect) lists it, required.
 */
/** A list item (TargetGroupsListItem); `statistics`: those beyond progress the caller computed (routes/target-groups.ts). */
export function renderTargetGroupListItem(tg: TargetGroupRecord, version: ApiVersion, dialect: SandboxDialect, statistics: Record<string, unknown> = {}): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: tg.id,
    project_manager_id: tg.project_manager_id,
    locale: tg.locale,
    status: tg.status,
    created_at: tg.created_at,
    updated_at: tg.updated_at,
    statistics: {
      progress: {
        value: { current_completes: tg.metrics.completes, current_prescreens: tg.metrics.prescreens, filling_goal: tg.filling_goal, filling_strategy: 'completes' },
        issues: [],
      },
      ...statistics,
    },
    target_group_customer_reference_number: tg.target_group_customer_reference_number,
  };
  if (dialect.listItemName(version)) item.name = tg.name ?? '';
  return item;
}

/** Names of the input fields whose stored value differs (for target_group.updated events). */
export function changedFields(before: TargetGroupRecord, after: TargetGroupRecord): string[] {
  const keys = Object.keys(after) as Array<keyof TargetGroupRecord>;
  return keys.filter((k) => k !== 'updated_at' && k !== 'seq' && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

export type { InvalidParam };
