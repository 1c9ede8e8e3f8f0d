// The webhook delivery envelope: CloudEvents 1.0 in structured JSON mode. Receivers dedupe on id.

export interface CloudEvent<T = unknown> {
  id: string;
  specversion: '1.0';
  source: string;
  type: string;
  time: string;
  datacontenttype: 'application/json';
  data: T;
}

export const TARGET_GROUP_UPDATED = 'target-group-updated';
export const SESSION_UPDATED = 'com.svc.session.updated';
/** Event types a webhook can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [TARGET_GROUP_UPDATED, SESSION_UPDATED] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The CloudEvents source of events about a target group. */
export const targetGroupSource = (accountId: number, projectId: string, targetGroupId: string): string =>
  `/v1/demand/accounts/${accountId}/projects/${projectId}/target-groups/${targetGroupId}`;

export function buildCloudEvent<T>(fields: { id: string; source: string; type: string; time: string; data: T }): CloudEvent<T> {
  return { id: fields.id, specversion: '1.0', source: fields.source, type: fields.type, time: fields.time, datacontenttype: 'application/json', data: fields.data };
}
