// Webhooks: the secret shown once at creation goes to the secret store, never into an activity result.
import { callApi, seg } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { listAllPages } from './pagination';
import { LIST_WEBHOOKS } from '../api/wire/lists';
import { readAnswer } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { WebhookAnswer, WebhookCreated, webhookRequest } from '../api/wire/webhooks';
import { profileOfConfig, speaksSpec } from '../api/http/dialect';
import type { ActivityCtx, ApiObject } from './types';

/** A webhook as studyflow declares it. */
export interface WebhookDesired {
  url: string;
  events: string[];
  /** `gzip` or null/absent for uncompressed. Always sent on update, so an update never drops it by omission. */
  compression?: 'gzip' | null;
}

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

export function webhookActivities(deps: ActivityDeps) {
  const hooks = (ctx: ActivityCtx) => `/v1/accounts/${seg(ctx.accountId)}/webhooks`;
  const profile = profileOfConfig(deps.api.config);

  /**
   * The create/update body in the profile's dialect: `{url, events, compression}` under `sandbox` (compression
   * always sent, so an update never drops it by omission); `{url, events}` under `cint`, which has no compression:
   * a webhook that asks for gzip there is refused rather than created uncompressed.
   */
  function body(activity: string, operation: string, desired: WebhookDesired): { url: string; events: unknown[]; compression?: 'gzip' | null } {
    const d = requireObject(activity, 'desired', desired);
    const url = requireText(activity, 'desired.url', d.url);
    const events = requireArray(activity, 'desired.events', d.events);
    const compression = d.compression ?? null;
    if (compression !== null && compression !== 'gzip') throw invalidInputFailure(activity, 'desired.compression must be gzip or null');
    if (speaksSpec(profile, 'webhook_compression')) return requestBody(activity, operation, webhookRequest(profile), { url, events, compression });
    if (compression !== null) throw invalidInputFailure(activity, `desired.compression: the ${profile} profile's API has no webhook compression (a spec-only field); remove compression from the study's webhook`);
    return requestBody(activity, operation, webhookRequest(profile), { url, events });
  }

  return {
    async listWebhooks(input: ListWebhooksInput): Promise<ListWebhooksOutput> {
      const ctx = checkCtx('listWebhooks', input.ctx);
      const items = await listAllPages(deps.api, ctx, { method: 'GET', path: hooks(ctx) }, LIST_WEBHOOKS, deps.listPageSize ?? 100);
      return { webhooks: items.filter(isResource).map(withoutSecret) };
    },

    /**
     * Reuses a webhook with the same URL whose secret the store holds; otherwise creates one (Idempotency-Key)
     * and hands the secret to the store before returning.
     */
    async createWebhook(input: CreateWebhookInput): Promise<CreateWebhookOutput> {
      const activity = 'createWebhook';
      const ctx = checkCtx(activity, input.ctx);
      const key = requireText(activity, 'idempotencyKey', input.idempotencyKey);
      const json = body(activity, 'create_webhook', input.desired);
      const existing = (await listAllPages(deps.api, ctx, { method: 'GET', path: hooks(ctx) }, LIST_WEBHOOKS, deps.listPageSize ?? 100)).filter(isResource);
      for (const hook of existing) {
        if (hook.url === json.url && (await deps.webhookSecrets.has({ accountId: ctx.accountId, webhookId: String(hook.id) }))) {
          return { webhook: withoutSecret(hook), created: false };
        }
      }
      const req = { method: 'POST', path: hooks(ctx), json, idempotencyKey: key } as const;
      // create_webhook answers the webhook with its secret, once; an answer without it is a wire_mismatch.
      const hook = readAnswer({ operation: 'create_webhook', ...req }, WebhookCreated, await callApi(deps.api, ctx, req));
      await deps.webhookSecrets.save({ accountId: ctx.accountId, webhookId: hook.id, url: json.url, secret: hook.secret });
      return { webhook: withoutSecret(hook), created: true };
    },

    /** PUT replaces the webhook; compression is always sent (null when not wanted). */
    async updateWebhook(input: UpdateWebhookInput): Promise<WebhookOutput> {
      const ctx = checkCtx('updateWebhook', input.ctx);
      const id = requireText('updateWebhook', 'webhookId', input.webhookId);
      const req = { method: 'PUT', path: `${hooks(ctx)}/${seg(id)}`, json: body('updateWebhook', 'update_webhook', input.desired) } as const;
      return { webhook: withoutSecret(readAnswer({ operation: 'update_webhook', ...req }, WebhookAnswer, await callApi(deps.api, ctx, req))) };
    },

    /** DELETE; a webhook already gone counts as deleted. */
    async deleteWebhook(input: DeleteWebhookInput): Promise<DeleteWebhookOutput> {
      const ctx = checkCtx('deleteWebhook', input.ctx);
      const id = requireText('deleteWebhook', 'webhookId', input.webhookId);
      const res = await callApi(deps.api, ctx, { method: 'DELETE', path: `${hooks(ctx)}/${seg(id)}`, acceptStatuses: [404] });
      return { deleted: res.status !== 404 };
    },
  };
}

function isResource(item: unknown): item is ApiObject {
  return typeof item === 'object' && item !== null && (typeof (item as ApiObject).id === 'string' || typeof (item as ApiObject).id === 'number');
}

function withoutSecret(hook: ApiObject): ApiObject {
  const { secret: _secret, ...rest } = hook;
  return { ...rest, id: String(hook.id) };
}
