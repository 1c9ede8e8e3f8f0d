// ID list files: one ID per line, no header (docs/api-conventions.md). Blank lines are skipped, a UTF-8
// BOM and CR line endings are accepted, duplicates inside a file collapse to the first occurrence.
import type { MultipartPart } from '../core/multipart';

export const ENTITY_TYPES = ['RSID', 'ACCESS_RESPONDENT_GUID'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
/** Spec: ID-based exclusions per target group, and IDs per upload file. */
export const MAX_IDS_PER_TARGET_GROUP = 100_000;
/** Before 2025-12-18 (the legacy cid lists, legacy-exclusions.ts): 1-64 visible ASCII characters, no whitespace. */
export const RSID_PATTERN = /^[\x21-\x7e]{1,64}$/;
export const GUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The reference: RSIDs are UUIDs (`format: uuid` on the RSID exclusion list and the recontact list). */
export const RSID_UUID_PATTERN = GUID_PATTERN;

export type IdListParse = { ok: true; ids: string[]; lines: number } | { ok: false; reason: string };

const describe = (entityType: EntityType) => (entityType === 'RSID' ? 'a valid RSID (a UUID)' : 'a valid access respondent GUID (UUID)');

/** Parses the file; the failure reason names the first bad line (never its content). */
export function parseIdListFile(part: MultipartPart | Buffer, entityType: EntityType): IdListParse {
  const data = Buffer.isBuffer(part) ? part : part.data;
  let text = data.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  const seen = new Set<string>();
  const ids: string[] = [];
  const pattern = entityType === 'RSID' ? RSID_UUID_PATTERN : GUID_PATTERN;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.length === 0) continue;
    if (!pattern.test(line)) return { ok: false, reason: `line ${i + 1} is not ${describe(entityType)}` };
    // Both are UUIDs: kept and compared in lower case.
    const id = line.toLowerCase();
    if (seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
    if (ids.length > MAX_IDS_PER_TARGET_GROUP) {
      return { ok: false, reason: `the file holds more than ${MAX_IDS_PER_TARGET_GROUP} distinct IDs (limit per file and per target group)` };
    }
  }
  if (ids.length === 0) return { ok: false, reason: 'the file contains no IDs' };
  return { ok: true, ids, lines: lines.length };
}

/**
 * The first line of an RSID file that is not a UUID (1-based), or undefined. The upload refuses such a file at
 * once with 400 bad_request_error (the reference's answer to a bad upload); a GUID file's bad line fails its job.
 */
export function firstNonUuidRsidLine(part: MultipartPart | Buffer): number | undefined {
  const data = Buffer.isBuffer(part) ? part : part.data;
  let text = data.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.length > 0 && !RSID_UUID_PATTERN.test(line)) return i + 1;
  }
  return undefined;
}

/** Reads `?entity_type=` (required unless a default is given); returns null after recording a problem. */
export function readEntityType(query: URLSearchParams, problems: Array<{ name: string; reason: string }>, fallback?: EntityType): EntityType | null {
  const value = query.get('entity_type');
  if (value === null && fallback) return fallback;
  if (value === null || !(ENTITY_TYPES as readonly string[]).includes(value)) {
    problems.push({ name: 'entity_type', reason: `query parameter must be one of ${ENTITY_TYPES.join(', ')}` });
    return null;
  }
  return value as EntityType;
}
