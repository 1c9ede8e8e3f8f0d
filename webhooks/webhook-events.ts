// Turns a verified CloudEvents 1.0 delivery into the WebhookEventSignal the study workflows accept.
// Only what the workflows need crosses over: event id, type and time, the target group id, the kinds
// of change objects (with supplier_id / allocation_group_id), and session statuses with their two
// timestamps. Respondent ids, session ids, quota targets, costs and the changes' previous/current
// values stay behind, so no personal data reaches workflow history.

import { SESSION_UPDATED_EVENT, SESSION_UPDATED_EVENTS, TARGET_GROUP_UPDATED_EVENT } from '../shared/api-profile';
import type { WebhookEventSignal } from '../workflows/messages';

export const TARGET_GROUP_UPDATED = TARGET_GROUP_UPDATED_EVENT;
/** The sessions data event of the `sandbox` profile (the spec's name). */
export const SESSION_UPDATED = SESSION_UPDATED_EVENT.sandbox;

/** The sessions data event under either profile's name (`com.svc.session.updated`, `session-updated`). */
const isSessionsEvent = (type: string) => SESSION_UPDATED_EVENTS.includes(type);

/** The CloudEvents 1.0 envelope (structured JSON mode) of a delivery. */
export interface CloudEventEnvelope {
  id: string;
  specversion: '1.0';
  source: string;
  type: string;
  time?: string;
  datacontenttype?: string;
  data?: unknown;
}

/** Longest event id accepted (it becomes a dedupe key). */
const MAX_ID_LENGTH = 256;
/** Most change objects or sessions carried into one signal (Temporal payloads are size-limited). */
export const MAX_ITEMS_PER_SIGNAL = 1000;
const MAX_NAME_LENGTH = 128;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max = MAX_NAME_LENGTH): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** The envelope, or why the value is not a CloudEvents 1.0 event. */
export function readCloudEvent(value: unknown): CloudEventEnvelope | { problem: string } {
  if (!isObject(value)) return { problem: 'the body is not a JSON object' };
  if (value.specversion !== '1.0') return { problem: 'specversion must be "1.0"' };
  if (!isText(value.id, MAX_ID_LENGTH)) return { problem: `id must be a non-empty string of at most ${MAX_ID_LENGTH} characters` };
  if (!isText(value.source, 2048)) return { problem: 'source must be a non-empty string' };
  if (!isText(value.type, 256)) return { problem: 'type must be a non-empty string' };
  if (value.time !== undefined && (typeof value.time !== 'string' || Number.isNaN(Date.parse(value.time)))) {
    return { problem: 'time must be an RFC 3339 timestamp' };
  }
  if (value.datacontenttype !== undefined && typeof value.datacontenttype !== 'string') return { problem: 'datacontenttype must be a string' };
  return {
    id: value.id,
    specversion: '1.0',
    source: value.source,
    type: value.type,
    time: value.time as string | undefined,
    datacontenttype: value.datacontenttype as string | undefined,
    data: value.data,
  };
}

export interface SignalConversion {
  signal: WebhookEventSignal;
  /** Change objects or sessions left out because the event carried more than MAX_ITEMS_PER_SIGNAL. */
  truncated: number;
}

/**
 * The signal for an event. `receivedAt` (ISO) stands in for a missing `time`. Unknown event types
 * give a signal with id, type, time and target group only; unknown change objects are left out.
 */
export function toWebhookEventSignal(event: CloudEventEnvelope, receivedAt: string): SignalConversion {
  const time = event.time ?? receivedAt;
  const data = event.data;
  const signal: WebhookEventSignal = { id: event.id, type: event.type, time };
  let truncated = 0;
  if (event.type === TARGET_GROUP_UPDATED) {
    const changes = readChanges(isObject(data) ? data.changes : undefined);
    truncated = Math.max(0, changes.length - MAX_ITEMS_PER_SIGNAL);
    signal.changes = changes.slice(0, MAX_ITEMS_PER_SIGNAL);
  } else if (isSessionsEvent(event.type)) {
    const sessions = readSessions(data, time);
    truncated = Math.max(0, sessions.length - MAX_ITEMS_PER_SIGNAL);
    signal.sessions = sessions.slice(0, MAX_ITEMS_PER_SIGNAL);
  }
  const targetGroupId = targetGroupIdOf(event);
  if (targetGroupId !== undefined) signal.targetGroupId = targetGroupId;
  return { signal, truncated };
}

/** Change objects the workflows know: status and field changes, CPI changes, and the allocations_* family. */
export function isKnownChangeObject(object: string): boolean {
  return object === 'status_change' || object === 'field_change' || object === 'private_exchange_cpi_change' || /^allocations_[a-z0-9_]+$/.test(object);
}

function readChanges(value: unknown): NonNullable<WebhookEventSignal['changes']> {
  if (!Array.isArray(value)) return [];
  const changes: NonNullable<WebhookEventSignal['changes']> = [];
  for (const item of value) {
    if (!isObject(item) || !isText(item.object) || !isKnownChangeObject(item.object)) continue;
    const change: NonNullable<WebhookEventSignal['changes']>[number] = { object: item.object };
    const supplierId = idText(item.supplier_id);
    if (supplierId !== undefined) change.supplier_id = supplierId;
    const allocationGroupId = idText(item.allocation_group_id);
    if (allocationGroupId !== undefined) change.allocation_group_id = allocationGroupId;
    changes.push(change);
  }
  return changes;
}

/** Session records from `data` (one record, `{sessions: [...]}` or an array), oldest update first. */
function readSessions(data: unknown, fallbackTime: string): NonNullable<WebhookEventSignal['sessions']> {
  const records: unknown[] = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.sessions) ? data.sessions : isObject(data) ? [data] : [];
  const sessions: NonNullable<WebhookEventSignal['sessions']> = [];
  for (const record of records) {
    if (!isObject(record) || !isText(record.status)) continue;
    const updated = timestampText(record.respondent_update_date);
    const session: NonNullable<WebhookEventSignal['sessions']>[number] = {
      status: record.status,
      // Webhooks of versions before 2025-05-27 carry no timestamps: the event time stands in.
      respondent_update_date: updated ?? fallbackTime,
    };
    if (record.respondent_last_date_change === null) session.respondent_last_date_change = null;
    else {
      const last = timestampText(record.respondent_last_date_change);
      if (last !== undefined) session.respondent_last_date_change = last;
    }
    sessions.push(session);
  }
  // Stable sort: equal or unparseable dates keep their delivery order.
  return sessions
    .map((session, index) => ({ session, index, at: Date.parse(session.respondent_update_date) }))
    .sort((a, b) => (Number.isNaN(a.at) || Number.isNaN(b.at) ? a.index - b.index : a.at - b.at || a.index - b.index))
    .map((entry) => entry.session);
}

function targetGroupIdOf(event: CloudEventEnvelope): string | undefined {
  const data = event.data;
  if (isObject(data)) {
    const direct = idText(data.target_group_id);
    if (direct !== undefined) return direct;
  }
  const fromSource = /\/target-groups\/([^/?#]+)\/?$/.exec(event.source)?.[1];
  if (fromSource !== undefined && fromSource.length <= MAX_NAME_LENGTH) return decodeURIComponentSafe(fromSource);
  if (isSessionsEvent(event.type)) {
    const records: unknown[] = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.sessions) ? data.sessions : [];
    const ids = new Set(records.map((record) => (isObject(record) ? idText(record.target_group_id) : undefined)));
    if (ids.size === 1) return [...ids][0];
  }
  return undefined;
}

function idText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return isText(value) ? value : undefined;
}

function timestampText(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 64 && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
