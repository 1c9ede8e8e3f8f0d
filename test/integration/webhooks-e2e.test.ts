import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaderValue } from '../../webhooks/webhook-signature';
import { eventually, startTestStack, writeCalls, writeStudy, type TestStack } from './harness';

function webhookStudy(url: string, events: string[]): string {
  return `format: studyflow/v1
study: webhook-demo
account: "1001"
business_unit: "2001"
project:
  name: Webhooks end to end
  project_customer_reference_number: PO-WEBHOOKS-1
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/webhooks?rid=[%RID%]
    expected_incidence_rate: 0.7
    expected_length_of_interview_minutes: 5
    filling_goal: 60
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch: { mode: auto }
    timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
webhooks:
  - url: ${url}
    events: [${events.join(', ')}]
    compression: gzip
`;
}

describe('webhooks: subscriptions as code, verified deliveries, events as workflow signals', () => {
  let t: TestStack;
  let file: string;
  let url: string;
  beforeAll(async () => {
    // The spec's dialect whatever STUDYFLOW_TEST_PROFILE says: this file tests gzip compression and the spec's session
    // event, which only it has (under cint the webhook path is multi-host's, and the wire the contract tests').
    t = await startTestStack('webhooks', { apiProfile: 'sandbox' });
    url = t.stack.webhooks!.url;
    file = writeStudy(t.dir, 'study.yaml', webhookStudy(url, ['target-group-updated', 'com.svc.session.updated']));
  });
  afterAll(async () => t?.stop());

  const post = (path: string, body: unknown) =>
    fetch(`${t.stack.sandbox.baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const sandboxWebhooks = () => Object.values((t.stack.sandbox.state().slices.webhooks as { webhooks: Record<string, { id: string; url: string; events: string[]; compression: string | null }> }).webhooks);

  it('creates the declared webhook once, keeps its secret out of history, and re-applies with no write', async () => {
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(sandboxWebhooks()).toEqual([expect.objectContaining({ url, compression: 'gzip' })]);
    const secrets = JSON.parse(fs.readFileSync(t.env.STUDYFLOW_WEBHOOK_SECRETS_FILE, 'utf8')) as { secret: string }[];
    expect(secrets).toHaveLength(1);

    const before = t.stack.sandbox.requests().length;
    expect((await t.cli(['apply', file])).code).toBe(0);
    expect(writeCalls(t.stack.sandbox.requests().slice(before))).toEqual([]);
    await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET, secrets[0].secret]);
  });

  it('turns signed, gzip-compressed session deliveries from the sandbox into workflow state', async () => {
    for (let i = 0; i < 6; i += 1) expect((await post('/fielding/advance', { minutes: 240 })).status).toBeLessThan(300);
    const status = await eventually(
      async () => {
        const s = await t.status('1001', 'webhook-demo');
        const counted = Object.values(s.targetGroups.us.events.sessionsByStatus).reduce((a, b) => a + b, 0);
        return counted > 0 ? s : undefined;
      },
      60_000,
      500,
    );
    const events = status.targetGroups.us.events;
    expect(events.received).toBeGreaterThan(0);
    expect(events.lastSessionUpdate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const stats = t.stack.webhooks!.receiver.stats();
    expect(stats.accepted).toBeGreaterThan(0);
    expect(Object.values(stats.rejected).reduce((a, b) => a + b, 0)).toBe(0);
    expect(t.stack.webhooks!.router.counts.routed).toBeGreaterThan(0);
  });

  it('rejects forged, tampered and stale deliveries and ignores duplicates, and none of them changes the study', async () => {
    const secret = (JSON.parse(fs.readFileSync(t.env.STUDYFLOW_WEBHOOK_SECRETS_FILE, 'utf8')) as { secret: string }[])[0].secret;
    const before = await t.status('1001', 'webhook-demo');
    const tgId = before.targetGroups.us.targetGroupId!;
    const now = new Date().toISOString();
    const envelope = {
      id: randomUUID(),
      specversion: '1.0',
      source: `/v1/demand/accounts/1001/projects/${before.projectId}/target-groups/${tgId}`,
      type: 'com.svc.session.updated',
      time: now,
      datacontenttype: 'application/json',
      data: { account_id: 1001, project_id: before.projectId, target_group_id: tgId, sessions: [{ session_id: 's-x', status: 'Complete', respondent_update_date: now, respondent_last_date_change: now }] },
    };
    const body = JSON.stringify(envelope);
    const send = (payload: string | Buffer, signature: string, gzip = false) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-signature': signature, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        body: payload,
      });
    const seconds = Math.floor(Date.now() / 1000);
    expect((await send(body, signatureHeaderValue('not-the-secret', body, seconds))).status).toBe(401);
    expect((await send(body.replace('Complete', 'Terminate'), signatureHeaderValue(secret, body, seconds))).status).toBe(401);
    expect((await send(body, signatureHeaderValue(secret, body, seconds - 3600))).status).toBe(401);
    const counted = (s: typeof before) => s.targetGroups.us.events.received;
    const received = counted(await t.status('1001', 'webhook-demo'));

    expect((await send(gzipSync(body), signatureHeaderValue(secret, body, seconds), true)).status).toBe(202);
    await eventually(async () => (counted(await t.status('1001', 'webhook-demo')) === received + 1 ? true : undefined));
    expect((await send(body, signatureHeaderValue(secret, body, seconds))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(counted(await t.status('1001', 'webhook-demo'))).toBe(received + 1);
    const stats = t.stack.webhooks!.receiver.stats();
    expect(stats.rejected.bad_signature).toBeGreaterThanOrEqual(2);
    expect(stats.rejected.stale).toBeGreaterThanOrEqual(1);
    expect(stats.duplicates).toBeGreaterThanOrEqual(1);
  });

  it('updates the webhook when the file changes its events, always sending compression so it stays on', async () => {
    writeStudy(t.dir, 'study.yaml', webhookStudy(url, ['target-group-updated']));
    const result = await t.cli(['apply', file]);
    expect(result.code, result.stdout).toBe(0);
    expect(sandboxWebhooks()).toEqual([expect.objectContaining({ url, events: ['target-group-updated'], compression: 'gzip' })]);
  });
});
