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
/** The spec dialect's sessions data event; the dialect table (core/dialect.ts) names each dialect's. */
export const SESSION_UPDATED = 'com.svc.session.updated';
/** An event type a webhook subscribes to: one of its dialect's (core/dialect.ts webhookEvents). */
export type WebhookEventType = string;

/** The CloudEvents source of events about a target group. */
export const targetGroupSource = (accountId: number, projectId: string, targetGroupId: string): string =>
  `/v1/demand/accounts/${accountId}/projects/${projectId}/target-groups/${targetGroupId}`;

export function buildCloudEvent<T>(fields: { id: string; source: string; type: string; time: string; data: T }): CloudEvent<T> {
  return { id: fields.id, specversion: '1.0', source: fields.source, type: fields.type, time: fields.time, datacontenttype: 'application/json', data: fields.data };
}
