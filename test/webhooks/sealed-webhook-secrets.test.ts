// Webhook secrets sealed with the payload key beside the ID lists: what one worker saves, every
// receiver sharing the storage opens; keys rotate; nothing in storage holds a secret in the clear.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { generateCodecKey, parseCodecKeyList } from '../../temporal/codec-keys';
import { SealedWebhookSecretStore, webhookSecretsFromEnv } from '../../webhooks/sealed-webhook-secrets';
import { startWebhookReceiver } from '../../webhooks/webhook-receiver';
import { SECRET, envelope, post, signedDelivery } from './delivery-fixtures';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-sealed-'));
  dirs.push(dir);
  return dir;
}

const k1 = generateCodecKey();
const k2 = generateCodecKey();
const keysOf = (...keys: { keyId: string; base64: string }[]) => parseCodecKeyList(keys.map((k) => `${k.keyId}:${k.base64}`).join(','));

function allFileText(dir: string): string {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(fs.readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out.join('\n');
}

describe('sealed webhook secrets', () => {
  it('a secret saved by one worker opens in another process reading the same storage, never in the clear', async () => {
    const dir = tempDir();
    const writer = new SealedWebhookSecretStore({ objects: createBlobStore({ dir }).objects, keys: keysOf(k1) });
    await writer.save({ accountId: '1001', webhookId: 'wh-1', url: 'https://hooks.example.com/a', secret: SECRET });
    const reader = new SealedWebhookSecretStore({ objects: createBlobStore({ dir }).objects, keys: keysOf(k1) });
    expect(await reader.secretsForVerification()).toEqual([SECRET]);
    expect(await reader.has({ accountId: '1001', webhookId: 'wh-1' })).toBe(true);
    expect(await reader.has({ accountId: '1001', webhookId: 'wh-2' })).toBe(false);
    const stored = allFileText(dir);
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain('hooks.example.com');
    expect(stored).toContain(k1.keyId);
  });

  it('rotates: the new active key seals, the old one still opens, and a checked record is sealed again', async () => {
    const dir = tempDir();
    const objects = createBlobStore({ dir }).objects;
    await new SealedWebhookSecretStore({ objects, keys: keysOf(k1) }).save({ accountId: '1001', webhookId: 'old', url: 'u', secret: 'whsec_old' });
    const rotated = new SealedWebhookSecretStore({ objects, keys: keysOf(k2, k1) });
    await rotated.save({ accountId: '1001', webhookId: 'new', url: 'u', secret: 'whsec_new' });
    expect((await rotated.secretsForVerification()).sort()).toEqual(['whsec_new', 'whsec_old']);
    expect(rotated.lastReading?.keyIds.sort()).toEqual([k1.keyId, k2.keyId].sort());
    expect(await rotated.has({ accountId: '1001', webhookId: 'old' })).toBe(true); // re-sealed with k2
    const onlyNew = new SealedWebhookSecretStore({ objects, keys: keysOf(k2) });
    expect((await onlyNew.readAll()).sort()).toEqual(['whsec_new', 'whsec_old']);
    expect(onlyNew.lastReading).toMatchObject({ records: 2, opened: 2, unknownKey: 0, damaged: 0 });
  });

  it('counts and names records it cannot open (unknown key, tampering, a record moved to another name)', async () => {
    const dir = tempDir();
    const objects = createBlobStore({ dir }).objects;
    await new SealedWebhookSecretStore({ objects, keys: keysOf(k1) }).save({ accountId: '1001', webhookId: 'a', url: 'u', secret: 'whsec_a' });
    const warnings: string[] = [];
    const other = new SealedWebhookSecretStore({ objects, keys: keysOf(k2), warn: (m) => warnings.push(m) });
    expect(await other.readAll()).toEqual([]);
    expect(other.lastReading).toMatchObject({ records: 1, unknownKey: 1 });
    expect(warnings[0]).toContain(k1.keyId);
    // The sealed bytes are bound to their name: copied under another webhook's name, they do not open.
    const bytes = await objects.get(SealedWebhookSecretStore.nameOf({ accountId: '1001', webhookId: 'a' }));
    await objects.put(SealedWebhookSecretStore.nameOf({ accountId: '1001', webhookId: 'b' }), bytes!);
    const same = new SealedWebhookSecretStore({ objects, keys: keysOf(k1), warn: () => undefined });
    expect(await same.readAll()).toEqual(['whsec_a']);
    expect(same.lastReading).toMatchObject({ records: 2, opened: 1, damaged: 1 });
  });

  it('caches reads, and reads again (at most once a second) when asked for fresh secrets', async () => {
    const dir = tempDir();
    const objects = createBlobStore({ dir }).objects;
    let now = 1_000_000;
    const writer = new SealedWebhookSecretStore({ objects, keys: keysOf(k1) });
    const reader = new SealedWebhookSecretStore({ objects, keys: keysOf(k1), clock: () => now, cacheMs: 30_000 });
    expect(await reader.secretsForVerification()).toEqual([]);
    await writer.save({ accountId: '1', webhookId: 'x', url: 'u', secret: 'whsec_x' });
    expect(await reader.secretsForVerification()).toEqual([]); // cached
    expect(await reader.secretsForVerification({ fresh: true })).toEqual(['whsec_x']);
    await writer.save({ accountId: '1', webhookId: 'y', url: 'u', secret: 'whsec_y' });
    expect(await reader.secretsForVerification({ fresh: true })).toEqual(['whsec_x']); // rate-limited
    now += 1_000;
    expect((await reader.secretsForVerification({ fresh: true })).sort()).toEqual(['whsec_x', 'whsec_y']);
  });

  it('a receiver verifies a delivery for a webhook created after its last read (fresh read on a mismatch)', async () => {
    const dir = tempDir();
    const objects = createBlobStore({ dir }).objects;
    const reader = new SealedWebhookSecretStore({ objects, keys: keysOf(k1), cacheMs: 60_000, minRefreshMs: 0 });
    await new SealedWebhookSecretStore({ objects, keys: keysOf(k1) }).save({ accountId: '1001', webhookId: 'first', url: 'u', secret: 'whsec_first_0000' });
    const received: string[] = [];
    const receiver = await startWebhookReceiver({
      secrets: (read) => reader.secretsForVerification(read),
      onEvent: async (event) => void received.push(event.id),
    });
    try {
      expect(await reader.secretsForVerification()).toEqual(['whsec_first_0000']);
      await new SealedWebhookSecretStore({ objects, keys: keysOf(k1) }).save({ accountId: '1001', webhookId: 'second', url: 'u', secret: SECRET });
      const res = await post(receiver.url, signedDelivery(envelope('target-group-updated', { target_group_id: 'tg-1', changes: [] })));
      expect(res.status).toBe(202);
      expect(receiver.stats().rejected.bad_signature).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('is chosen when a payload key is configured; object storage without a key refuses to start', () => {
    const dir = tempDir();
    const local = createBlobStore({ dir });
    const sealed = webhookSecretsFromEnv({ STUDYFLOW_CODEC_KEYS: `${k1.keyId}:${k1.base64}` }, local);
    expect(sealed.sealed).toBeInstanceOf(SealedWebhookSecretStore);
    expect(sealed.description).toContain(`${dir}/webhook-secrets/`);
    const file = webhookSecretsFromEnv({ STUDYFLOW_API_BASE_URL: 'http://x', STUDYFLOW_WEBHOOK_SECRETS_FILE: path.join(dir, 's.json') }, local);
    expect(file.sealed).toBeUndefined();
    expect(file.description).toContain('s.json');
    const s3Like = { ...local, location: 's3://bucket/prefix' };
    expect(() => webhookSecretsFromEnv({ STUDYFLOW_API_BASE_URL: 'http://x' }, s3Like)).toThrow(/STUDYFLOW_CODEC_KEYS/);
  });
});
