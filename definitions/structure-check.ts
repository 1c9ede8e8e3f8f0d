// Structure check: ajv validates the data against the generated JSON Schema; each ajv error becomes
// an issue with a document path, a stable code and a message a buyer can act on. Union errors
// (conditions, template references, nullable fields) are narrowed to the branch the data meant.
import Ajv, { type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { DiagnosticCode } from './diagnostic-codes';
import { closestMatch, didYouMeanHint } from './did-you-mean';
import { formatPath, isPlainObject, pathKey, valueAt, type DocPath } from './doc-path';
import { isNonFiniteNumber } from './non-finite-numbers';
import { PRECOMPILED_VALIDATORS } from './precompiled-validators';
import AJV_OPTIONS from './structure-ajv-options.json';
import STUDY_SCHEMA from '../schema/study.schema.json';
import SHARED_SCHEMA from '../schema/shared.schema.json';

export type SchemaKind = 'study' | 'shared';

export interface StructureIssue {
  code: DiagnosticCode;
  keyword: string;
  path: DocPath;
  /** Where to show it when not at `path` (a missing field is shown at its parent). */
  at?: DocPath;
  target?: 'key' | 'value';
  message: string;
  hint?: string;
}

type Schema = Record<string, any>;

interface Validator {
  kind: SchemaKind;
  /** The ajv instance with the root schema: made on first use when the validator is precompiled. */
  ajv(): Ajv;
  validate: ValidateFunction;
  root: Schema;
  branches: Map<object, ValidateFunction>;
}

const validators = new Map<SchemaKind, Validator>();

/**
 * The validator of a kind of file, against the committed JSON Schema (schema/*.schema.json, generated from the
 * zod model; test/definitions/json-schema.test.ts keeps them equal). The compiled CLI has it precompiled
 * (definitions/precompiled-validators.ts); from the sources it is compiled here on first use.
 */
function validatorFor(kind: SchemaKind): Validator {
  let v = validators.get(kind);
  if (!v) {
    const root = structuredClone(kind === 'study' ? STUDY_SCHEMA : SHARED_SCHEMA) as Schema;
    let ajv: Ajv | undefined;
    const ajvWithRoot = () => {
      if (!ajv) {
        ajv = new Ajv({ ...AJV_OPTIONS } as Options);
        ajv.addSchema(root, kind);
      }
      return ajv;
    };
    v = { kind, ajv: ajvWithRoot, validate: PRECOMPILED_VALIDATORS[kind] ?? ajvWithRoot().getSchema(kind)!, root, branches: new Map() };
    validators.set(kind, v);
  }
  return v;
}

function deref(v: Validator, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 5; i++) {
    const ref = typeof s.$ref === 'string' ? s.$ref : Array.isArray(s.allOf) && s.allOf.length === 1 ? s.allOf[0].$ref : undefined;
    if (typeof ref !== 'string' || !ref.startsWith('#/definitions/')) break;
    const target = v.root.definitions?.[ref.slice('#/definitions/'.length)];
    if (!target) break;
    s = { ...target, description: s.description ?? target.description };
  }
  return s;
}

function compileBranch(v: Validator, branch: Schema): ValidateFunction {
  let fn = v.branches.get(branch);
  if (!fn) {
    const ref = typeof branch.$ref === 'string' && branch.$ref.startsWith('#/') ? branch.$ref : undefined;
    fn = v.ajv().compile(ref ? { $ref: `${v.kind}${ref}` } : { ...branch, definitions: v.root.definitions });
    v.branches.set(branch, fn);
  }
  return fn;
}

function pointerToPath(pointer: string, data: unknown): DocPath {
  if (!pointer) return [];
  const out: DocPath = [];
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(seg)) {
      out.push(Number(seg));
      node = node[Number(seg)];
    } else {
      out.push(seg);
      node = isPlainObject(node) ? node[seg] : undefined;
    }
  }
  return out;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(schemaType: unknown, actual: string): boolean {
  const types = Array.isArray(schemaType) ? schemaType : [schemaType];
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

function branchType(s: Schema): string[] {
  if (s.type) return Array.isArray(s.type) ? s.type : [s.type];
  const values: unknown[] = s.enum ?? ('const' in s ? [s.const] : []);
  return [...new Set(values.map(jsonType))];
}

/** Replaces the errors of a failed union by the errors of the branch the data was meant for. */
function narrowUnions(v: Validator, errors: ErrorObject[], data: unknown): ErrorObject[] {
  const depth = (e: ErrorObject) => (e.instancePath ? e.instancePath.split('/').length : 0);
  const unions = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').sort((a, b) => depth(a) - depth(b));
  let result = errors;
  for (const union of unions) {
    if (!result.includes(union)) continue;
    const at = union.instancePath;
    result = result.filter((e) => e.instancePath !== at && !e.instancePath.startsWith(`${at}/`));
    const value = valueAt(data, pointerToPath(at, data));
    const branches = (union.schema as Schema[]).map((b) => ({ raw: b, schema: deref(v, b) }));
    const consts = branches.map((b) => b.schema.properties?.object?.const);
    let chosen: Schema | undefined;
    if (consts.every((c) => typeof c === 'string')) {
      if (!isPlainObject(value)) {
        result.push(synthetic('type', at, { type: 'object' }));
      } else if (value.object === undefined) {
        result.push(synthetic('required', at, { missingProperty: 'object' }, { properties: { object: { description: `one of ${consts.join(', ')}` } } }));
      } else {
        chosen = branches[consts.indexOf(value.object as string)]?.raw;
        if (!chosen) result.push(synthetic('enum', `${at}/object`, { allowedValues: consts }));
      }
    } else {
      const actual = jsonType(value);
      chosen = branches.find((b) => typeMatches(branchType(b.schema), actual))?.raw;
      if (!chosen) result.push(synthetic('type', at, { type: [...new Set(branches.flatMap((b) => branchType(b.schema)))].join(',') }));
    }
    if (chosen) {
      const fn = compileBranch(v, chosen);
      if (!fn(value)) {
        const sub = narrowUnions(v, fn.errors ?? [], value);
        result.push(...sub.map((e) => ({ ...e, instancePath: at + e.instancePath })));
      }
    }
  }
  return result;
}

function synthetic(keyword: string, instancePath: string, params: Record<string, unknown>, parentSchema: Schema = {}): ErrorObject {
  return { keyword, instancePath, schemaPath: '', params, parentSchema, message: '' } as ErrorObject;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};
const typeWords = (types: string) =>
  types
    .split(',')
    .map((t) => TYPE_WORDS[t] ?? t)
    .join(' or ');
const YAML11_BOOLEANS = new Set(['yes', 'no', 'on', 'off', 'y', 'n', 'True', 'False', 'TRUE', 'FALSE', 'Yes', 'No']);

/** Checks data against the schema of a study or shared file. Values that came from `${ENV}` are never echoed. */
export function checkStructure(kind: SchemaKind, data: unknown, fromEnv: Map<string, string[]> = new Map()): StructureIssue[] {
  const v = validatorFor(kind);
  if (v.validate(data)) return [];
  const errors = narrowUnions(v, v.validate.errors ?? [], data);
  const issues: StructureIssue[] = [];
  const show = (docPath: DocPath, value: unknown) => {
    const names = fromEnv.get(pathKey(docPath));
    if (names) return `the value of ${names.map((n) => `\${${n}}`).join(', ')}`;
    // JSON.stringify would print null (document-checks reports these values before the schema does).
    if (isNonFiniteNumber(value)) return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 57)}…` : text;
  };
  const name = (docPath: DocPath) => `\`${formatPath(docPath)}\``;

  for (const e of errors) {
    if ((e as { propertyName?: string }).propertyName !== undefined) continue; // reported by its propertyNames error
    const at = pointerToPath(e.instancePath, data);
    const value = valueAt(data, at);
    const parentSchema = deref(v, e.parentSchema as Schema | undefined);
    const params = e.params as Record<string, any>;
    const where = at.length ? ` in ${name(at)}` : '';
    switch (e.keyword) {
      case 'required': {
        const prop = String(params.missingProperty);
        const description = deref(v, parentSchema.properties?.[prop]).description;
        issues.push({ code: 'SF2001', keyword: e.keyword, path: [...at, prop], at, message: `missing required field \`${prop}\`${where}`, hint: description });
        break;
      }
      case 'additionalProperties': {
        const prop = String(params.additionalProperty);
        const allowed = Object.keys(parentSchema.properties ?? {});
        let hint = didYouMeanHint(prop, allowed, 'allowed fields');
        if (kind === 'shared' && at.length === 0) hint = 'shared.yaml holds only `format`, `exclusion_groups` and `profile_templates`';
        if (kind === 'shared' && prop === 'target_groups') hint = "a study's target groups join a shared group through their own exclusions.exclusion_groups";
        issues.push({ code: 'SF2002', keyword: e.keyword, path: [...at, prop], target: 'key', message: `unknown field \`${prop}\`${where}`, hint });
        break;
      }
      case 'propertyNames': {
        const prop = String(params.propertyName);
        const rule = (e.schema as Schema)?.patternErrorMessage ?? 'a valid name';
        issues.push({ code: 'SF2011', keyword: e.keyword, path: [...at, prop], target: 'key', message: `invalid key \`${prop}\`${where}: use ${rule}` });
        break;
      }
      case 'type': {
        const expected = String(params.type);
        if (value === null) {
          issues.push({
            code: 'SF2009',
            keyword: e.keyword,
            path: at,
            message: `${name(at)} is empty (null); it needs ${typeWords(expected)}`,
            hint: 'give it a value, or remove the key if the field is optional',
          });
          break;
        }
        let hint: string | undefined;
        if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) hint = `quote it so YAML reads it as text: "${String(value)}"`;
        if (expected === 'boolean' && typeof value === 'string' && YAML11_BOOLEANS.has(value)) hint = 'YAML 1.2 reads this as text; write true or false';
        const actual = jsonType(value) === 'integer' ? 'number' : jsonType(value);
        const message =
          expected === 'integer' && typeof value === 'number'
            ? `${name(at)} must be a whole number; got ${show(at, value)}`
            : `${name(at)} must be ${typeWords(expected)}; got ${TYPE_WORDS[actual] ?? actual} ${show(at, value)}`;
        issues.push({ code: 'SF2003', keyword: e.keyword, path: at, message, hint });
        break;
      }
      case 'const': {
        const allowed = String(params.allowedValue);
        if (at.length === 1 && at[0] === 'format') {
          issues.push({
            code: 'SF2010',
            keyword: e.keyword,
            path: at,
            message: `unsupported format ${show(at, value)}: this studyflow reads \`${allowed}\``,
            hint: `start the file with \`format: ${allowed}\``,
          });
        } else {
          issues.push({ code: 'SF2004', keyword: e.keyword, path: at, message: `${name(at)} must be \`${allowed}\`; got ${show(at, value)}` });
        }
        break;
      }
      case 'enum': {
        const allowed = (params.allowedValues as unknown[]).map(String);
        const match = typeof value === 'string' ? closestMatch(value, allowed) : undefined;
        const hint = match ? `did you mean "${match}"?` : undefined;
        issues.push({ code: 'SF2004', keyword: e.keyword, path: at, message: `${name(at)} must be one of ${allowed.join(', ')}; got ${show(at, value)}`, hint });
        break;
      }
      case 'pattern':
      case 'format': {
        const rule = parentSchema.patternErrorMessage ?? `text matching ${String(params.pattern ?? params.format)}`;
        issues.push({ code: 'SF2005', keyword: e.keyword, path: at, message: `${name(at)} must be ${rule}; got ${show(at, value)}` });
        break;
      }
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const comparison = String(params.comparison);
        issues.push({ code: 'SF2006', keyword: e.keyword, path: at, message: `${name(at)} must be ${comparison} ${params.limit}; got ${show(at, value)}` });
        break;
      }
      case 'minItems':
      case 'maxItems':
      case 'minLength':
      case 'maxLength':
      case 'minProperties':
      case 'maxProperties': {
        const limit = Number(params.limit);
        const unit = e.keyword.endsWith('Length') ? 'characters' : e.keyword.endsWith('Items') ? 'items' : 'entries';
        const message =
          e.keyword.startsWith('min') && limit === 1
            ? `${name(at)} must not be empty`
            : `${name(at)} must have ${e.keyword.startsWith('min') ? 'at least' : 'at most'} ${limit} ${unit}`;
        issues.push({ code: 'SF2007', keyword: e.keyword, path: at, message });
        break;
      }
      case 'uniqueItems': {
        const i = Number(params.i);
        const j = Number(params.j);
        const later = Math.max(i, j);
        const item = Array.isArray(value) ? value[later] : undefined;
        issues.push({
          code: 'SF2008',
          keyword: e.keyword,
          path: [...at, later],
          message: `${name(at)} lists ${show([...at, later], item)} twice (items ${Math.min(i, j)} and ${later})`,
          hint: 'remove the repeated item',
        });
        break;
      }
      default:
        issues.push({ code: 'SF2005', keyword: e.keyword, path: at, message: `${name(at)} ${e.message ?? 'is not valid'}` });
    }
  }
  return issues;
}
