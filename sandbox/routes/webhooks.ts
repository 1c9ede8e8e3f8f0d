// Webhooks (spec: Resources › Webhook; Events; DESIGN.md "webhooks", "signature", "delivery envelope").
//   GET/POST /v1/accounts/{account_id}/webhooks          list; create -> 201 with the secret (shown once)
//   GET/PUT/DELETE /v1/accounts/{account_id}/webhooks/{webhook_id}   PUT replaces (omitted compression = off)
// Deliveries (model/webhook-delivery-engine.ts) for the webhooks of the target group's account:
//   target-group-updated     on target group updates, launch, pause, resume, completion (status_change,
//                            field_change) and exchange-allocation changes (allocations_*, private_exchange_cpi_change)
//   com.svc.session.updated  on simulated session changes (reporting-fielding-simulation.ts); the cint dialect
//                            names it session-updated (core/dialect.ts). The cint dialect also takes
//                            subscriptions to quota-fill-registered, whose payload neither the spec nor the
//                            reference describes: the sandbox delivers none.
// Signed with the dialect's header (Svc-Signature or Cint-Signature). compression: the spec's dialect only.
// Each webhook keeps the API version it was last written with; its payloads follow that version.
// Admin: GET /_sandbox/webhooks/deliveries, PUT /_sandbox/webhooks/settings {max_attempts, base_delay_ms, max_delay_ms}.

import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../core/api-error';
import type { TargetGroupEvent } from '../core/event-bus';
import { ObjectReader } from '../core/input-validation';
import { paginate, parsePageRequest } from '../core/pagination';
import { created, noContent, ok, type RequestContext, type RouteModule, type SandboxServices } from '../core/route-module';
import type { StateStore } from '../core/state-store';
import { usesNewNames, type ApiVersion } from '../core/versioning';
import { buildCloudEvent, TARGET_GROUP_UPDATED, targetGroupSource, type WebhookEventType } from '../model/cloud-event';
import type { SandboxDialect } from '../core/dialect';
import { sessionForVersion } from '../model/session-record';
import { changesForVersion, diffTargetGroupFields, type TargetGroupChange } from '../model/target-group-changes';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_DELAY_MS, WebhookDeliveryEngine, type DeliveryRecord } from '../model/webhook-delivery-engine';
import { newWebhookSecret, readWebhookInput, type WebhookCompression } from '../model/webhook-subscription';
import { SESSIONS_UPDATED_EVENT, type SessionsUpdated } from './reporting-fielding-simulation';
import { exchangeAllocationAdminRoutes, type ExchangeAllocationsChanged } from './webhooks-exchange-allocations';
import { httpDeliveryTransport } from './webhooks-delivery-transport';

const SLICE = 'webhooks';
const WEBHOOKS = '/v1/accounts/{account_id}/webhooks';
const WEBHOOK = `${WEBHOOKS}/{webhook_id}`;

/** Target group fields whose changes become field_change / status_change objects (2025-12-18 names). */
export const TRACKED_TARGET_GROUP_FIELDS = [
  'status', 'name', 'locale', 'live_url', 'test_url', 'expected_incidence_rate', 'expected_length_of_interview_minutes',
  'filling_goal', 'project_manager_id', 'collects_pii', 'study_type', 'pricing_model', 'type', 'client_cost_per_interview_note',
  'target_group_customer_reference_number', 'fielding_run_id', 'start_fielding_at', 'end_fielding_at', 'cost_per_interview',
  'fielding_assistant_assignment', 'allocations',
] as const;

export interface WebhookRecord {
  id: string;
  seq: number;
  account_id: number;
  url: string;
  events: WebhookEventType[];
  compression: WebhookCompression;
  secret: string;
  api_version: ApiVersion;
  created_at: string;
  updated_at: string;
}

export interface DeliverySettings {
  max_attempts: number;
  base_delay_ms: number;
  max_delay_ms: number;
}

interface WebhooksSlice {
  webhooks: Record<string, WebhookRecord>;
  deliveries: Record<string, DeliveryRecord>;
  settings: DeliverySettings;
}

const defaultSettings = (): DeliverySettings => ({ max_attempts: DEFAULT_MAX_ATTEMPTS, base_delay_ms: DEFAULT_BASE_DELAY_MS, max_delay_ms: DEFAULT_MAX_DELAY_MS });
const emptySlice = (): WebhooksSlice => ({ webhooks: {}, deliveries: {}, settings: defaultSettings() });
/** The slice, created on first write. */
const webhooksSlice = (store: StateStore) => store.slice<WebhooksSlice>(SLICE, emptySlice);
/** The slice when it exists, else an empty one (reading never creates state). */
const peekWebhooksSlice = (store: StateStore): WebhooksSlice => (store.data.slices[SLICE] as WebhooksSlice | undefined) ?? emptySlice();

/** A webhook as the reference answers it (Webhook, WebhookCreated), with the spec dialect's compression. */
function render(record: WebhookRecord, dialect: SandboxDialect, withSecret = false): Record<string, unknown> {
  const out: Record<string, unknown> = { id: record.id, url: record.url, events: [...record.events], ...(dialect.webhookCompression ? { compression: record.compression } : {}), created_at: record.created_at, updated_at: record.updated_at };
  if (withSecret) out.secret = record.secret;
  return out;
}

/**
 * `{webhooks, has_more}` (reference: get_webhooks): the list carries no cursor; the next page is asked
 * for with `start_after=<id of the last webhook of the page>`.
 */
function listWebhooks(ctx: RequestContext) {
  const all = Object.values(peekWebhooksSlice(ctx.store).webhooks).filter((w) => w.account_id === ctx.account!.account_id);
  const after = ctx.query.get('start_after');
  const anchor = after === null ? undefined : all.find((w) => w.id === after);
  if (after !== null && !anchor) throw badRequest('Invalid pagination parameters.', [{ name: 'start_after', reason: 'is not the id of a webhook of this account' }]);
  const size = parsePageRequest(new URLSearchParams(ctx.query.has('page_size') ? { page_size: ctx.query.get('page_size')! } : {}), { max: 100, default: 10 }).pageSize;
  const page = paginate(all, { pageSize: size, afterSeq: anchor?.seq ?? 0 }, (w) => render(w, ctx.dialect));
  return ok({ webhooks: page.data, has_more: page.has_more });
}

function requireWebhook(ctx: RequestContext): WebhookRecord {
  const record = peekWebhooksSlice(ctx.store).webhooks[ctx.params.webhook_id];
  if (!record || record.account_id !== ctx.account!.account_id) throw notFound(`Webhook ${ctx.params.webhook_id} not found.`);
  return record;
}

function createWebhook(ctx: RequestContext) {
  const input = readWebhookInput(ctx.body, ctx.dialect);
  const now = ctx.clock.iso();
  const record: WebhookRecord = { id: ctx.newId('whk'), seq: ctx.store.nextSeq(), account_id: ctx.account!.account_id, ...input, secret: newWebhookSecret(), api_version: ctx.version, created_at: now, updated_at: now };
  webhooksSlice(ctx.store).webhooks[record.id] = record;
  return created(render(record, ctx.dialect, true), { location: `${ctx.path}/${record.id}` });
}

function replaceWebhook(ctx: RequestContext) {
  const record = requireWebhook(ctx);
  const input = readWebhookInput(ctx.body, ctx.dialect);
  Object.assign(record, input, { api_version: ctx.version, updated_at: ctx.clock.iso() });
  return ok(render(record, ctx.dialect));
}

function deleteWebhook(ctx: RequestContext) {
  const record = requireWebhook(ctx);
  const slice = webhooksSlice(ctx.store);
  delete slice.webhooks[record.id];
  for (const delivery of Object.values(slice.deliveries)) {
    if (delivery.webhook_id === record.id && delivery.status === 'pending') Object.assign(delivery, { status: 'cancelled', next_attempt_at: null, payload: null });
  }
  return noContent();
}

/** Field names and pricing values as a webhook of an older version knows them. */
function changeForVersion(change: TargetGroupChange, version: ApiVersion): TargetGroupChange {
  if (usesNewNames(version) || change.object !== 'field_change') return change;
  const field = change.field === 'client_cost_per_interview_note' ? 'client_cpi' : change.field;
  const value = (v: unknown) => ((change.field === 'pricing_model' || change.field === 'type') && v === 'rate_card' ? 'ratecard' : v);
  return { ...change, field, previous: value(change.previous), current: value(change.current) };
}

class WebhookDispatcher {
  readonly engine: WebhookDeliveryEngine;
  /** Last seen values of the tracked fields per target group (the "previous" of field changes); not persisted. */
  private readonly snapshots = new Map<string, Record<string, unknown>>();

  constructor(readonly services: SandboxServices) {
    this.engine = this.createEngine();
  }

  private createEngine(): WebhookDeliveryEngine {
    const { services } = this;
    const settings = peekWebhooksSlice(services.store).settings;
    return new WebhookDeliveryEngine({
      transport: httpDeliveryTransport(),
      findWebhook: (id) => peekWebhooksSlice(services.store).webhooks[id],
      records: () => peekWebhooksSlice(services.store).deliveries,
      now: () => services.clock.now(),
      newId: () => services.newId('dlv'),
      onChange: () => services.commit(),
      maxAttempts: settings.max_attempts,
      baseDelayMs: settings.base_delay_ms,
      maxDelayMs: settings.max_delay_ms,
      signatureHeader: services.dialect.signatureHeader,
    });
  }

  /** Sends `data(version)` as one event to every webhook of the account subscribed to `type`. */
  publish(accountId: number, type: WebhookEventType, source: string, data: (version: ApiVersion) => Record<string, unknown> | null): void {
    const id = randomUUID();
    const time = this.services.clock.iso();
    const subscribers = Object.values(peekWebhooksSlice(this.services.store).webhooks)
      .filter((webhook) => webhook.account_id === accountId && webhook.events.includes(type))
      .sort((a, b) => a.seq - b.seq);
    for (const webhook of subscribers) {
      const payload = data(webhook.api_version);
      if (payload) this.engine.enqueue(webhook.id, buildCloudEvent({ id, source, type, time, data: payload }));
    }
    if (subscribers.length > 0) this.services.commit();
  }

  targetGroupChanged(accountId: number, projectId: string, targetGroupId: string, changes: TargetGroupChange[]): void {
    if (changes.length === 0) return;
    this.publish(accountId, TARGET_GROUP_UPDATED, targetGroupSource(accountId, projectId, targetGroupId), (version) => {
      const visible = changesForVersion(changes, version).map((change) => changeForVersion(change, version));
      return visible.length > 0 ? { account_id: accountId, project_id: projectId, target_group_id: targetGroupId, changes: visible } : null;
    });
  }

  onTargetGroupEvent(event: TargetGroupEvent): void {
    const before = this.snapshots.get(event.target_group_id) ?? {};
    const after = Object.fromEntries(TRACKED_TARGET_GROUP_FIELDS.map((field) => [field, (event.target_group as unknown as Record<string, unknown>)[field] ?? null]));
    this.snapshots.set(event.target_group_id, after);
    if (event.change === 'created') return;
    const fields = TRACKED_TARGET_GROUP_FIELDS.filter((field) => event.changed_fields.includes(field) && JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field]));
    this.targetGroupChanged(event.account_id, event.project_id, event.target_group_id, diffTargetGroupFields(before, after, fields));
  }

  onSessions(event: SessionsUpdated): void {
    this.publish(event.account_id, this.services.dialect.sessionEvent, targetGroupSource(event.account_id, event.project_id, event.target_group_id), (version) => ({
      account_id: event.account_id,
      project_id: event.project_id,
      target_group_id: event.target_group_id,
      sessions: event.sessions.map((session) => sessionForVersion(session, version)),
    }));
  }
}

/** One dispatcher per running sandbox (keyed by its store; several sandboxes may share a process). */
const dispatchers = new WeakMap<StateStore, WebhookDispatcher>();

function restartDispatcher(services: SandboxServices): WebhookDispatcher {
  dispatchers.get(services.store)?.engine.stop();
  const fresh = new WebhookDispatcher(services);
  dispatchers.set(services.store, fresh);
  fresh.engine.resumePending();
  return fresh;
}

function readDeliverySettings(body: unknown, current: DeliverySettings): DeliverySettings {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['max_attempts', 'base_delay_ms', 'max_delay_ms']);
  const maxAttempts = reader.integer('max_attempts', { min: 1, max: 20 });
  const base = reader.integer('base_delay_ms', { min: 1, max: 3_600_000 });
  const max = reader.integer('max_delay_ms', { min: 1, max: 86_400_000 });
  reader.finish('The delivery settings are invalid.');
  return { max_attempts: maxAttempts ?? current.max_attempts, base_delay_ms: base ?? current.base_delay_ms, max_delay_ms: max ?? current.max_delay_ms };
}

export const webhooksRoutes: RouteModule = {
  name: 'webhooks',
  routes: [
    { method: 'GET', path: WEBHOOKS, handler: listWebhooks },
    { method: 'POST', path: WEBHOOKS, idempotent: true, handler: createWebhook },
    { method: 'GET', path: WEBHOOK, handler: (ctx) => ok(render(requireWebhook(ctx), ctx.dialect)) },
    { method: 'PUT', path: WEBHOOK, handler: replaceWebhook },
    { method: 'DELETE', path: WEBHOOK, handler: deleteWebhook },
    {
      method: 'GET',
      path: '/_sandbox/webhooks/deliveries',
      handler: (ctx) => ok({ data: Object.values(peekWebhooksSlice(ctx.store).deliveries).map(({ payload: _payload, ...rest }) => rest) }),
    },
    {
      method: 'PUT',
      path: '/_sandbox/webhooks/settings',
      handler: (ctx) => {
        const slice = webhooksSlice(ctx.store);
        slice.settings = readDeliverySettings(ctx.body, slice.settings);
        ctx.commit();
        const running = dispatchers.get(ctx.store);
        if (running) restartDispatcher(running.services);
        return ok(slice.settings);
      },
    },
    ...exchangeAllocationAdminRoutes,
  ],
  init(services) {
    restartDispatcher(services);
    const current = () => dispatchers.get(services.store);
    const onTargetGroup = (event: TargetGroupEvent) => current()?.onTargetGroupEvent(event);
    const unsubscribers = [
      ...(['created', 'updated', 'launched', 'paused', 'resumed', 'completed'] as const).map((change) => services.events.on(`target_group.${change}`, onTargetGroup)),
      services.events.on('exchange_allocations.changed', (event) => {
        const changed = event as ExchangeAllocationsChanged;
        current()?.targetGroupChanged(changed.account_id, changed.project_id, changed.target_group_id, changed.changes);
      }),
      services.events.on(SESSIONS_UPDATED_EVENT, (event) => current()?.onSessions(event as SessionsUpdated)),
      services.events.on('sandbox.reset', () => {
        restartDispatcher(services);
      }),
    ];
    return () => {
      unsubscribers.forEach((unsubscribe) => unsubscribe());
      current()?.engine.stop();
      dispatchers.delete(services.store);
    };
  },
};
