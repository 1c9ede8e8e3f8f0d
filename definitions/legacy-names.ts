// The spec's rename table (API version 2025-12-18) as it shows up in a study file: old field names
// and the old `ratecard` value. The loader reports each occurrence; `migrateStudyText` rewrites them.
import { isMap, isScalar, isSeq, type Document, type Pair, type Scalar, type YAMLMap } from 'yaml';
import type { DocPath } from './doc-path';
import { keyText } from './source-map';

interface FieldRename {
  from: string;
  /** The name the study format uses. */
  to: string;
  /** The new name in the API's rename table. */
  api: string;
  /** Only inside a mapping held under this key. */
  onlyUnder?: string;
  note?: string;
  /** The whole message, when the change is not one of the API's renames. */
  message?: string;
}

export const FIELD_RENAMES: readonly FieldRename[] = [
  { from: 'filling_goal', to: 'completes_goal', api: 'completes_goal', onlyUnder: 'quota' },
  { from: 'quota_percentage', to: 'completes_goal_percentage', api: 'completes_goal_percentage' },
  { from: 'quota_nominal', to: 'completes_goal', api: 'completes_goal' },
  { from: 'index', to: 'conditions', api: 'condition', note: 'a target lists its conditions under `conditions`' },
  { from: 'indexes', to: 'conditions', api: 'conditions' },
  { from: 'ungrouped', to: 'targets', api: 'target', note: 'a profile lists its targets under `targets`' },
  { from: 'grouped', to: 'targets', api: 'target', note: 'a profile lists its targets under `targets`' },
  {
    from: 'interlocked_profiles',
    to: 'profiles',
    api: 'profiles entries with object = blended',
    note: 'each entry belongs under `profiles` with `object: blended`',
  },
  { from: 'client_cpi', to: 'client_cost_per_interview_note', api: 'client_cost_per_interview_note' },
  { from: 'purchase_order_number', to: 'project_customer_reference_number', api: 'project_customer_reference_number' },
  {
    from: 'values',
    to: 'open_ended_values',
    api: 'open_ended_values',
    onlyUnder: 'conditions',
    message: 'an open-ended condition lists its answers under `open_ended_values`, with `allow_all_values: false` (the reference\'s shape)',
  },
  {
    from: 'zip_codes',
    to: 'open_ended_values',
    api: 'open_ended_values',
    onlyUnder: 'conditions',
    message: 'zip codes are the `open_ended_values` of an open-ended condition on the postal-code question, with `allow_all_values: false` (the reference has no zip_code kind)',
  },
];

/** Renames that make an open-ended condition, which also needs `allow_all_values` beside the new name. */
export const OPEN_ENDED_VALUES = 'open_ended_values';

/**
 * Fields a study file may no longer hold because the API assigns them: `project.human_readable_id` (and
 * its pre-2025-12-18 spelling) is a short id the server gives the project.
 */
export const REMOVED_FIELDS = [
  { field: 'human_readable_id', onlyUnder: 'project', note: 'the API assigns a project\'s human_readable_id; a study file cannot set it' },
  { field: 'human-readable-id', onlyUnder: 'project', note: 'the API assigns a project\'s human_readable_id; a study file cannot set it' },
  {
    field: 'open_ended_group',
    onlyUnder: 'profiles',
    note: 'the reference has no group field: open-ended questions are grouped by listing their conditions in the targets of one regular profile, as they already are',
  },
] as const;

export const VALUE_RENAMES = [
  { from: 'ratecard', to: 'rate_card', fields: ['pricing_model', 'type'] },
  { from: 'zip_code', to: 'open_ended', fields: ['object'], message: 'there is no `zip_code` condition: zip codes are an `open_ended` condition on the postal-code question' },
] as const;

/** Fields whose value became an amount of money `{value, currency_code}` (reference: MonetaryAmountRequestModel). */
export const MONEY_FIELDS = ['client_cost_per_interview_note'] as const;

/**
 * The amount an older text or number note stands for, when it is one: `2.50 USD`, `USD 2.50` (a decimal
 * greater than 0 and a three-letter currency code). A number alone or free text has no currency to take,
 * so it is left for the user.
 */
export function moneyOfText(value: unknown): { value: string; currency_code: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(?:([A-Za-z]{3})\s*)?(\d+(?:\.\d{1,6})?)\s*(?:([A-Za-z]{3}))?\s*$/.exec(value);
  if (!m || Boolean(m[1]) === Boolean(m[3]) || !/[1-9]/.test(m[2])) return undefined;
  return { value: m[2], currency_code: (m[1] ?? m[3]).toUpperCase() };
}

export interface LegacyName {
  /**
   * `removed`: a field the API assigns (or that has no place on the wire); `to` is empty and `note` says why.
   * `money`: a text or number where the API takes an amount of money; `from` is `field: text`, `to` the amount
   * written as YAML (empty when the text is not one).
   */
  kind: 'field' | 'value' | 'removed' | 'money';
  from: string;
  to: string;
  api: string;
  note?: string;
  message?: string;
  /** Path of the mapping that holds the key. */
  parentPath: DocPath;
  /** Path of the old key (field) or of the old value. */
  path: DocPath;
  map: YAMLMap;
  pair: Pair;
}

/** Every old name in the document, in document order. Aliases are not followed. */
export function findLegacyNames(doc: Document): LegacyName[] {
  const found: LegacyName[] = [];
  const walk = (node: unknown, nodePath: DocPath, parentKey: string | undefined) => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyText(pair);
        const childPath = [...nodePath, key];
        const rename = FIELD_RENAMES.find((r) => r.from === key && (!r.onlyUnder || r.onlyUnder === parentKey));
        if (rename) {
          found.push({ kind: 'field', ...rename, parentPath: nodePath, path: childPath, map: node, pair });
        }
        const removed = REMOVED_FIELDS.find((f) => f.field === key && f.onlyUnder === parentKey);
        if (removed) {
          found.push({ kind: 'removed', from: key, to: '', api: '', note: removed.note, parentPath: nodePath, path: childPath, map: node, pair });
          continue;
        }
        if ((MONEY_FIELDS as readonly string[]).includes(key) && isScalar(pair.value) && pair.value.value !== null) {
          const amount = moneyOfText(pair.value.value);
          const to = amount ? `{ value: "${amount.value}", currency_code: ${amount.currency_code} }` : '';
          found.push({ kind: 'money', from: `${key}: ${String(pair.value.value)}`, to, api: key, parentPath: nodePath, path: childPath, map: node, pair });
          continue;
        }
        const valueRename = VALUE_RENAMES.find((r) => (r.fields as readonly string[]).includes(key));
        if (valueRename && isScalar(pair.value) && pair.value.value === valueRename.from) {
          const message = 'message' in valueRename ? valueRename.message : undefined;
          found.push({ kind: 'value', from: valueRename.from, to: valueRename.to, api: valueRename.to, ...(message ? { message } : {}), parentPath: nodePath, path: childPath, map: node, pair });
        }
        walk(pair.value, childPath, key);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...nodePath, i], parentKey));
    }
  };
  walk(doc.contents, [], undefined);
  return found;
}

export function legacyMessage(name: LegacyName): string {
  if (name.message) return `\`${name.from}\`: ${name.message}`;
  if (name.kind === 'removed') return `\`${name.from}\` cannot be set in a study file: ${name.note ?? 'the API assigns it'}`;
  if (name.kind === 'money') {
    return `\`${name.api}\` is an amount of money in API version 2025-12-18 ({value, currency_code}), not text`;
  }
  if (name.from === 'interlocked_profiles') {
    return '`interlocked_profiles` were replaced in API version 2025-12-18 by `profiles` entries with `object: blended`';
  }
  const base = `\`${name.from}\` was renamed to \`${name.api}\` in API version 2025-12-18`;
  return name.note ? `${base}; ${name.note}` : base;
}

export const MIGRATE_HINT = 'run `studyflow migrate <file>` to rewrite the pre-2025-12-18 names';
/** What to do about a note that is text: migrate converts an amount with its currency; anything else is the user's to write. */
export function moneyHint(name: LegacyName): string {
  return name.to
    ? `run \`studyflow migrate <file>\`: it writes ${name.to}`
    : 'write the amount and its currency, such as { value: "2.50", currency_code: USD } (a note that is not an amount has no place in the API)';
}
export const MIGRATE_REMOVE_HINT = 'run `studyflow migrate <file>`: it removes the field (or delete the line yourself)';

export function keyScalar(pair: Pair): Scalar | undefined {
  return isScalar(pair.key) ? pair.key : undefined;
}
