// Webhooks: the secret shown once at creation goes to the secret store, never into an activity result
// (api/operations/webhooks.ts).
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook, type WebhookDesired } from '../api/operations/webhooks';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import type { ActivityCtx, ApiObject } from './types';

export type { WebhookDesired } from '../api/operations/webhooks';

export interface ListWebhooksInput {
  ctx: ActivityCtx;
}
export interface ListWebhooksOutput {
  /** Without any `secret` field. */
  webhooks: ApiObject[];
}
export interface CreateWebhookInput {
  ctx: ActivityCtx;
  /** Sent as Idempotency-Key. */
  idempotencyKey: string;
  desired: WebhookDesired;
}
export interface CreateWebhookOutput {
  /** Without the secret (it went to the secret store). */
  webhook: ApiObject;
  created: boolean;
}
export interface UpdateWebhookInput {
  ctx: ActivityCtx;
  webhookId: string;
  desired: WebhookDesired;
}
export interface WebhookOutput {
  webhook: ApiObject;
}
export interface DeleteWebhookInput {
  ctx: ActivityCtx;
  webhookId: string;
}
export interface DeleteWebhookOutput {
  deleted: boolean;
}

/** The desired webhook's shape checked (its dialect is the operation's). */
function checkDesired(activity: string, desired: WebhookDesired): WebhookDesired {
  const d = requireObject(activity, 'desired', desired);
  const url = requireText(activity, 'desired.url', d.url);
  const events = requireArray(activity, 'desired.events', d.events) as string[];
  return { url, events, compression: d.compression as WebhookDesired['compression'] };
}

export function webhookActivities(deps: ActivityDeps) {
  return {
    async listWebhooks(input: ListWebhooksInput): Promise<ListWebhooksOutput> {
      const ctx = checkCtx('listWebhooks', input.ctx);
      return { webhooks: await listWebhooks(activityCaller(deps, ctx), deps.listPageSize) };
    },

    /**
     * Reuses a webhook with the same URL whose secret the store holds; otherwise creates one (Idempotency-Key)
     * and hands the secret to the store before returning.
     */
    async createWebhook(input: CreateWebhookInput): Promise<CreateWebhookOutput> {
      const activity = 'createWebhook';
      const ctx = checkCtx(activity, input.ctx);
      const idempotencyKey = requireText(activity, 'idempotencyKey', input.idempotencyKey);
      const desired = checkDesired(activity, input.desired);
      return await createWebhook(activityCaller(deps, ctx), { idempotencyKey, desired, secrets: deps.webhookSecrets, pageSize: deps.listPageSize });
    },

    /** PUT replaces the webhook; compression is always sent (null when not wanted). */
    async updateWebhook(input: UpdateWebhookInput): Promise<WebhookOutput> {
      const ctx = checkCtx('updateWebhook', input.ctx);
      const webhookId = requireText('updateWebhook', 'webhookId', input.webhookId);
      return { webhook: await updateWebhook(activityCaller(deps, ctx), { webhookId, desired: checkDesired('updateWebhook', input.desired) }) };
    },

    /** DELETE; a webhook already gone counts as deleted. */
    async deleteWebhook(input: DeleteWebhookInput): Promise<DeleteWebhookOutput> {
      const ctx = checkCtx('deleteWebhook', input.ctx);
      const id = requireText('deleteWebhook', 'webhookId', input.webhookId);
      return { deleted: await deleteWebhook(activityCaller(deps, ctx), id) };
    },
  };
}
