// Webhooks: the secret shown once at creation goes to the caller's secret store, never into a result.
import { profileOfConfig, speaksSpec } from '../http/dialect';
import { invalidInputFailure } from '../http/errors';
import { LIST_WEBHOOKS } from '../wire/lists';
import { readAnswer } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { WebhookAnswer, WebhookCreated, webhookRequest } from '../wire/webhooks';
import { seg, type ApiCaller } from './caller';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';
import type { ApiObject } from './types';

/** A webhook as studyflow declares it. */
export interface WebhookDesired {
  url: string;
  events: string[];
  /** `gzip` or null/absent for uncompressed. Always sent on update, so an update never drops it by omission. */
  compression?: 'gzip' | null;
}

/** Receives a webhook's signing secret, which the API shows once, at creation. */
export interface WebhookSecretStore {
  /** Stores the secret of a new webhook; must be durable before it resolves. */
  save(entry: { accountId: string; webhookId: string; url: string; secret: string }): Promise<void>;
  /** True when the secret of this webhook is held (so an existing webhook can be reused). */
  has(entry: { accountId: string; webhookId: string }): Promise<boolean>;
}

const hooks = (caller: ApiCaller) => `/v1/accounts/${seg(caller.accountId)}/webhooks`;

/**
 * The create/update body in the caller's dialect: `{url, events, compression}` under `sandbox` (compression
 * always sent, so an update never drops it by omission); `{url, events}` under `cint`, which has no compression:
 * a webhook that asks for gzip there is refused rather than created uncompressed. `name` names the operation in
 * the failure of a refused body.
 */
function webhookBody(caller: ApiCaller, name: string, operation: string, desired: WebhookDesired): { url: string; events: unknown[]; compression?: 'gzip' | null } {
  const profile = profileOfConfig(caller);
  const { url, events } = desired;
  const compression = desired.compression ?? null;
  if (compression !== null && compression !== 'gzip') throw invalidInputFailure(name, 'desired.compression must be gzip or null');
  if (speaksSpec(profile, 'webhook_compression')) return requestBody(name, operation, webhookRequest(profile), { url, events, compression });
  if (compression !== null) throw invalidInputFailure(name, `desired.compression: the ${profile} profile's API has no webhook compression (a spec-only field); remove compression from the study's webhook`);
  return requestBody(name, operation, webhookRequest(profile), { url, events });
}

function isResource(item: unknown): item is ApiObject {
  return typeof item === 'object' && item !== null && (typeof (item as ApiObject).id === 'string' || typeof (item as ApiObject).id === 'number');
}

function withoutSecret(hook: ApiObject): ApiObject {
  const { secret: _secret, ...rest } = hook;
  return { ...rest, id: String(hook.id) };
}

/** The account's webhooks (every page), without any `secret` field. */
export async function listWebhooks(caller: ApiCaller, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<ApiObject[]> {
  return (await listAllPages(caller, { method: 'GET', path: hooks(caller) }, LIST_WEBHOOKS, pageSize)).filter(isResource).map(withoutSecret);
}

/**
 * Reuses a webhook with the same URL whose secret the store holds; otherwise creates one (Idempotency-Key)
 * and hands the secret to the store before returning. The result never carries the secret.
 */
export async function createWebhook(
  caller: ApiCaller,
  input: { idempotencyKey: string; desired: WebhookDesired; secrets: WebhookSecretStore; pageSize?: number },
): Promise<{ webhook: ApiObject; created: boolean }> {
  const json = webhookBody(caller, 'createWebhook', 'create_webhook', input.desired);
  const existing = (await listAllPages(caller, { method: 'GET', path: hooks(caller) }, LIST_WEBHOOKS, input.pageSize ?? DEFAULT_LIST_PAGE_SIZE)).filter(isResource);
  for (const hook of existing) {
    if (hook.url === json.url && (await input.secrets.has({ accountId: caller.accountId, webhookId: String(hook.id) }))) {
      return { webhook: withoutSecret(hook), created: false };
    }
  }
  const req = { method: 'POST', path: hooks(caller), json, idempotencyKey: input.idempotencyKey } as const;
  // create_webhook answers the webhook with its secret, once; an answer without it is a wire_mismatch.
  const hook = readAnswer({ operation: 'create_webhook', ...req }, WebhookCreated, await caller.send(req));
  await input.secrets.save({ accountId: caller.accountId, webhookId: hook.id, url: json.url, secret: hook.secret });
  return { webhook: withoutSecret(hook), created: true };
}

/** update_webhook `PUT`: replaces the webhook; compression is always sent where the dialect has it (null when not wanted). */
export async function updateWebhook(caller: ApiCaller, input: { webhookId: string; desired: WebhookDesired }): Promise<ApiObject> {
  const req = { method: 'PUT', path: `${hooks(caller)}/${seg(input.webhookId)}`, json: webhookBody(caller, 'updateWebhook', 'update_webhook', input.desired) } as const;
  return withoutSecret(readAnswer({ operation: 'update_webhook', ...req }, WebhookAnswer, await caller.send(req)));
}

/** DELETE; false when the webhook was already gone. */
export async function deleteWebhook(caller: ApiCaller, webhookId: string): Promise<boolean> {
  const res = await caller.send({ method: 'DELETE', path: `${hooks(caller)}/${seg(webhookId)}`, acceptStatuses: [404] });
  return res.status !== 404;
}
