// The published reference of the Demand API (OpenAPI 3.0.3, version 2025-12-18) as a test oracle: its JSON
// schemas, compiled with ajv straight from the yml, check what the client sends and what the sandbox
// answers, independently of studyflow's own zod wire schemas. The document is not part of the project
// (public material, read for facts only: the GitHub repository api-evangelist/cint, file
// openapi/_original/cint-demand-openapi.yml); tests find it at STUDYFLOW_REFERENCE_OPENAPI, by default
// reference/cint-demand-openapi.yml in the shared folder beside the checkout (../shared), and are skipped,
// visibly, where it is absent.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { testDialect } from '../helpers/test-profile';

export const REFERENCE_PATH =
  process.env.STUDYFLOW_REFERENCE_OPENAPI ?? path.resolve(import.meta.dirname, '../../../shared/reference/cint-demand-openapi.yml');
export const referenceAvailable = existsSync(REFERENCE_PATH);

type Json = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Json;
}

let doc: Json | undefined;
let operations: Map<string, Operation> | undefined;
let components: Json | undefined;
const compiled = new Map<string, ValidateFunction>();
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  logger: false,
  formats: {
    uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
    ulid: /^[0-9A-Z]{26}$/,
  },
});

function load(): void {
  if (doc) return;
  doc = parse(readFileSync(REFERENCE_PATH, 'utf8'), { maxAliasCount: -1 }) as Json;
  operations = new Map();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (op && typeof op === 'object' && typeof (op as Json).operationId === 'string') operations.set((op as Json).operationId, { method: method.toUpperCase(), path, op: op as Json });
    }
  }
  components = openApiToJsonSchema(doc.components) as Json;
}

/** `{nullable: true}` and nothing that constrains: the document's way of saying "this allOf may be null". */
const isBareNullable = (node: unknown): boolean =>
  !!node && typeof node === 'object' && (node as Json).nullable === true && !Object.keys(node as Json).some((k) => k !== 'nullable' && k !== 'description' && k !== 'example');

/**
 * OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes "or null"; the boolean `exclusiveMinimum` /
 * `exclusiveMaximum` of OpenAPI 3.0 become the bound itself; everything else is kept. The document often writes a
 * nullable field as `allOf: [{nullable: true}, {type: …}]` (a `nullable` without `type`, which OpenAPI 3.0 gives
 * no effect, so a strict reading would refuse the null the document means): such an allOf is read as its other
 * branches, or null.
 */
function openApiToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApiToJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const allOf = (node as Json).allOf;
  if (Array.isArray(allOf) && allOf.some(isBareNullable) && allOf.some((branch) => !isBareNullable(branch))) {
    const rest = { ...(node as Json), allOf: allOf.filter((branch) => !isBareNullable(branch)) };
    return { anyOf: [openApiToJsonSchema(rest), { type: 'null' }] };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) if (k !== 'nullable' && k !== 'example' && k !== 'examples') out[k] = openApiToJsonSchema(v);
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  if ((node as Json).nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

function deref(node: Json | undefined): Json | undefined {
  let current = node;
  while (current && typeof current.$ref === 'string') current = current.$ref.slice(2).split('/').reduce((a: Json, k: string) => a[k], doc!);
  return current;
}

function compile(key: string, schema: unknown): ValidateFunction {
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile({ ...(openApiToJsonSchema(schema) as Json), components });
    compiled.set(key, fn);
  }
  return fn;
}

/** The reference's method and path template of an operation. */
export function referenceOperation(operationId: string): { method: string; path: string } {
  load();
  const found = operations!.get(operationId);
  if (!found) throw new Error(`the reference has no operation ${operationId}`);
  return { method: found.method, path: found.path };
}

/** Statuses the reference documents for an operation. */
export function referenceStatuses(operationId: string): string[] {
  load();
  return Object.keys(operations!.get(operationId)?.op.responses ?? {});
}

/** Problems of `body` against the JSON request body schema of `operationId` ([] when it fits). */
export function requestProblems(operationId: string, body: unknown): string[] {
  load();
  const found = operations!.get(operationId);
  if (!found) return [`the reference has no operation ${operationId}`];
  const schema = deref(found.op.requestBody)?.content?.['application/json']?.schema;
  if (!schema) return body === undefined ? [] : [`${operationId} takes no JSON body`];
  return [...run(compile(`${operationId} request`, schema), body), ...unknownFields(schema, body, '')];
}

/**
 * Fields of a request body the reference's schema does not name. The reference leaves `additionalProperties`
 * open, so a JSON Schema validator lets an invented field through; the real service may ignore it or refuse
 * it, and either way the client would be speaking something other than the reference. Composition is
 * followed: allOf, oneOf and anyOf name the union of their branches' fields; a schema that names no fields
 * (a free-form object) takes any.
 */
function unknownFields(schema: Json | undefined, body: unknown, at: string): string[] {
  return undeclaredFields(schema, body, at).map((u) => `${u.at || '(body)'} has ${u.field}, a field the reference does not name`);
}

/** A field of a body that the reference's schema does not declare: where it stands and its name. */
interface UndeclaredField {
  /** JSON pointer of the object holding it ('' for the body itself). */
  at: string;
  field: string;
}

function undeclaredFields(schema: Json | undefined, body: unknown, at: string): UndeclaredField[] {
  const fieldsOf = (node: Json | undefined): Map<string, Json> | undefined => {
    const s = deref(node);
    if (!s) return undefined;
    // A schema that lets any further field through (additionalProperties true or a schema) declares them all.
    if (s.additionalProperties && s.additionalProperties !== false) return undefined;
    const branches = [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])] as Json[];
    if (!s.properties && branches.length === 0) return undefined;
    const out = new Map<string, Json>(Object.entries((s.properties ?? {}) as Record<string, Json>));
    for (const branch of branches) {
      const more = fieldsOf(branch);
      if (!more) {
        if (deref(branch)?.type === 'object' || deref(branch)?.additionalProperties) return undefined;
        continue;
      }
      // A field several branches name takes what any of them allows there.
      for (const [k, v] of more) out.set(k, out.has(k) ? { anyOf: [out.get(k)!, v] } : v);
    }
    return out;
  };
  const s = deref(schema);
  if (Array.isArray(body)) {
    const itemsOf = (node: Json | undefined): Json[] => {
      const n = deref(node);
      if (!n) return [];
      if (n.items) return [n.items as Json];
      return [...((n.allOf ?? []) as Json[]), ...((n.oneOf ?? []) as Json[]), ...((n.anyOf ?? []) as Json[])].flatMap(itemsOf);
    };
    const items = itemsOf(s);
    if (items.length === 0) return [];
    const schemaOfItem = items.length === 1 ? items[0] : { anyOf: items };
    return body.flatMap((item, i) => undeclaredFields(schemaOfItem, item, `${at}/${i}`));
  }
  if (!body || typeof body !== 'object') return [];
  const fields = fieldsOf(s);
  if (!fields) return [];
  return Object.entries(body as Json).flatMap(([k, v]) => (fields.has(k) ? undeclaredFields(fields.get(k), v, `${at}/${k}`) : [{ at, field: k }]));
}

/**
 * The sandbox's two dialects (docs/sandbox.md): `spec` is the service the spec describes, deviations included;
 * `cint` is the reference exactly. The strict answer check takes the spec's stated fields in the spec dialect only.
 */
export type AnswerDialect = 'spec' | 'cint';

/**
 * Fields the reference does not declare but the spec states, so that the sandbox answers them in the spec's
 * dialect: per operation, the field's place (a JSON pointer, `*` for any array index) and the spec's line that
 * states it (../shared/spec/demand-exchange-api.md). Nothing else may be added to an answer.
 */
export const SPEC_STATED_ANSWER_FIELDS: ReadonlyArray<{ operation: string; field: string; spec: string }> = [
  { operation: 'get_target_group', field: '/type', spec: 'line 205: GET …/target-groups/{target_group_id} "returns target group including respondent_activity_exclusions, pricing_model, type, client_cost_per_interview_note"' },
  { operation: 'get_target_group_overview', field: '/type', spec: 'line 55: "The target group get, overview and generate-price-prediction (per business unit) responses carry the renamed pricing_model/type value."' },
  { operation: 'get_target_group_respondent_activity_exclusions', field: '/respondent_activity_exclusions/*/respondent_statuses', spec: 'line 62: respondent_statuses "optional array of status enumerations; default [\"Complete\"]" (an exclusion item field)' },
  { operation: 'get_target_group', field: '/respondent_activity_exclusions/*/respondent_statuses', spec: 'line 62 (an exclusion item field) and line 205 (get "returns target group including respondent_activity_exclusions")' },
  { operation: 'suggest_time_range', field: '/suggested_start', spec: 'line 142: "suggested_start, suggested_end | response fields of suggest time range in every version (not start and end)"' },
  { operation: 'suggest_time_range', field: '/suggested_end', spec: 'line 142: "suggested_start, suggested_end | response fields of suggest time range in every version (not start and end)"' },
  { operation: 'create_webhook', field: '/compression', spec: 'line 124: webhook "compression | optional; allowed value gzip; omitted or null means uncompressed"' },
  { operation: 'update_webhook', field: '/compression', spec: 'line 124: webhook "compression | optional; allowed value gzip; omitted or null means uncompressed"' },
  { operation: 'get_webhook', field: '/compression', spec: 'line 124: webhook "compression | optional; allowed value gzip; omitted or null means uncompressed"' },
  { operation: 'get_webhooks', field: '/webhooks/*/compression', spec: 'line 124: webhook "compression | optional; allowed value gzip; omitted or null means uncompressed"' },
];

/**
 * Values the reference does not allow but the spec states, in the spec's dialect only: at a place (JSON pointer,
 * `*` for any index), the spec's value and the reference's value it stands for. The check reads the answer with
 * the reference's value in its place, so nothing else at that place passes.
 */
export const SPEC_STATED_ANSWER_VALUES: ReadonlyArray<{ operations: readonly string[]; at: string; value: string; reference: string; spec: string }> = [
  {
    operations: ['create_webhook', 'update_webhook', 'get_webhook'],
    at: '/events/*',
    value: 'com.svc.session.updated',
    reference: 'session-updated',
    spec: 'line 309: the sessions data event is "com.svc.session.updated"',
  },
  { operations: ['get_webhooks'], at: '/webhooks/*/events/*', value: 'com.svc.session.updated', reference: 'session-updated', spec: 'line 309: the sessions data event is "com.svc.session.updated"' },
];

/** Required fields of the reference that the spec removes, in the spec's dialect only (the ajv problem it makes). */
export const SPEC_REMOVED_ANSWER_FIELDS: ReadonlyArray<{ operation: string; problem: RegExp; spec: string }> = [
  { operation: 'get_list_target_groups', problem: /^\/target_groups\/\d+ must have required property 'name'$/, spec: 'line 52: name "removed from the target group list response in version 2025-12-18"' },
];

/** A copy of `body` with the spec-stated values of `operationId` replaced by the reference's. */
function withReferenceValues(operationId: string, body: unknown): unknown {
  const rules = SPEC_STATED_ANSWER_VALUES.filter((r) => r.operations.includes(operationId));
  if (rules.length === 0) return body;
  const walk = (node: unknown, at: string): unknown => {
    const rule = typeof node === 'string' ? rules.find((r) => r.at === at.replace(/\/\d+(?=\/|$)/g, '/*') && r.value === node) : undefined;
    if (rule) return rule.reference;
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}/${i}`));
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, walk(v, `${at}/${k}`)]));
    return node;
  };
  return walk(body, '');
}

const pointerPattern = (at: string, field: string) => `${at.replace(/\/\d+(?=\/|$)/g, '/*')}/${field}`;

/**
 * Fields of an answer the reference does not declare (at any depth, through allOf/oneOf/anyOf), apart from
 * the spec's stated fields in the spec dialect. The reference leaves `additionalProperties` open, so ajv
 * alone would let any invented field through.
 */
export function undeclaredAnswerFields(operationId: string, status: number, body: unknown, dialect: AnswerDialect): string[] {
  load();
  const response = deref(operations!.get(operationId)?.op.responses?.[String(status)]);
  const schema = status === 204 ? undefined : response?.content?.['application/json']?.schema;
  if (!schema) return [];
  const allowed = new Set(dialect === 'spec' ? SPEC_STATED_ANSWER_FIELDS.filter((f) => f.operation === operationId).map((f) => f.field) : []);
  return undeclaredFields(schema, body, '')
    .filter((u) => !allowed.has(pointerPattern(u.at, u.field)))
    .map((u) => `${u.at || '(body)'} has ${u.field}, a field the reference does not declare`);
}

/**
 * Problems of an answer against the reference, strictly: the status must be one the operation documents, the
 * body must fit that status's JSON schema (a status without content must come without a body), and it may
 * carry no field the reference does not declare, apart from the spec's stated fields in the spec dialect
 * ({@link SPEC_STATED_ANSWER_FIELDS}, the values of {@link SPEC_STATED_ANSWER_VALUES}, the removals of
 * {@link SPEC_REMOVED_ANSWER_FIELDS}). The dialect defaults to the one the test run's sandbox speaks
 * (STUDYFLOW_TEST_PROFILE, test/helpers/test-profile.ts).
 */
export function answerProblems(operationId: string, status: number, body: unknown, dialect: AnswerDialect = testDialect()): string[] {
  load();
  const found = operations!.get(operationId);
  if (!found) return [`the reference has no operation ${operationId}`];
  const response = deref(found.op.responses?.[String(status)]);
  if (!response) return [`${operationId} does not answer ${status} (it documents ${Object.keys(found.op.responses ?? {}).join(', ')})`];
  const schema = status === 204 ? undefined : response.content?.['application/json']?.schema;
  if (!schema) return body === undefined || body === '' || body === null ? [] : [`${operationId} answers ${status} without a body`];
  const read = dialect === 'spec' ? withReferenceValues(operationId, body) : body;
  const removed = dialect === 'spec' ? SPEC_REMOVED_ANSWER_FIELDS.filter((r) => r.operation === operationId) : [];
  const problems = run(compile(`${operationId} ${status}`, schema), read, 64).filter((problem) => !removed.some((r) => r.problem.test(problem))).slice(0, 8);
  return [...problems, ...undeclaredAnswerFields(operationId, status, body, dialect)];
}

/** Media types the reference documents for an answer (e.g. `text/csv` for a file download). */
export function referenceAnswerContentTypes(operationId: string, status: number): string[] {
  load();
  return Object.keys(deref(operations!.get(operationId)?.op.responses?.[String(status)])?.content ?? {});
}

/** Names of the response headers the reference marks required for a status. */
export function requiredAnswerHeaders(operationId: string, status: number): string[] {
  load();
  const response = deref(operations!.get(operationId)?.op.responses?.[String(status)]);
  return Object.entries((response?.headers ?? {}) as Json)
    .filter(([, h]) => deref(h as Json)?.required === true)
    .map(([name]) => name.toLowerCase());
}

function run(fn: ValidateFunction, value: unknown, limit = 8): string[] {
  if (fn(value)) return [];
  return (fn.errors ?? []).slice(0, limit).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}
