// Webhook signing secrets every receiver can read: each one sealed with the payload key (AES-256-GCM,
// the active codec key; any held key opens, so keys rotate as for payloads) and kept as a small object
// beside the ID lists (the same object storage, or the local blob directory). The worker that creates a
// webhook writes its record; receivers on other machines list and open them. Secrets never reach
// workflow history or logs; an object in the bucket is useless without the key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { BlobStore, SideObjects } from '../blobs/blob-store';
import type { WebhookSecretStore } from '../activities/activity-deps';
import { loadCodecKeys, type CodecKeys } from '../temporal/codec-keys';
import { withDevCodecKey } from '../temporal/temporal-connection';
import { FileWebhookSecretStore, fileSecretSource, type ReceiverSecretSource } from './webhook-secret-store';

/** Where the sealed records live among the side objects: `webhook-secrets/<account>/<webhook>.sealed`. */
export const SEALED_SECRETS_PREFIX = 'webhook-secrets/';
const FORMAT = 'studyflow.sealed-webhook-secret/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface SealedRecord {
  format: typeof FORMAT;
  keyId: string;
  /** base64 of iv | ciphertext | tag; the object's name is the additional authenticated data. */
  sealed: string;
}

interface SecretEntry {
  accountId: string;
  webhookId: string;
  url: string;
  secret: string;
  savedAt: string;
}

export interface SealedWebhookSecretStoreOptions {
  objects: SideObjects;
  keys: CodecKeys;
  /** How long a receiver reuses the secrets it read before reading them again. Default 30 s. */
  cacheMs?: number;
  /** Least time between two reads asked for by a failed verification. Default 1 s. */
  minRefreshMs?: number;
  /** Problems (a record sealed with a key not held, a damaged record): names and key ids only. */
  warn?: (message: string) => void;
  clock?: () => number;
}

/** Counts of the last read, for `studyflow receiver --check`. */
export interface SealedSecretsReading {
  records: number;
  opened: number;
  /** Records sealed with a key this process does not hold (rotated away too early, or another deployment's). */
  unknownKey: number;
  /** Records that failed authentication or do not parse. */
  damaged: number;
  /** Key ids the opened records were sealed with. */
  keyIds: string[];
}

const safeSegment = (value: string) => encodeURIComponent(value).replace(/[!'()*~%]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);

export class SealedWebhookSecretStore implements WebhookSecretStore, ReceiverSecretSource {
  private cache: { at: number; secrets: string[] } | undefined;
  private reading: Promise<string[]> | undefined;
  private lastFreshAt = -Infinity;
  private readonly clock: () => number;
  lastReading: SealedSecretsReading | undefined;

  constructor(private readonly options: SealedWebhookSecretStoreOptions) {
    this.clock = options.clock ?? Date.now;
    if (!options.keys.keys.has(options.keys.activeKeyId)) throw new Error(`codec keys: active key "${options.keys.activeKeyId}" is not among the keys`);
  }

  static nameOf(entry: { accountId: string; webhookId: string }): string {
    return `${SEALED_SECRETS_PREFIX}${safeSegment(entry.accountId)}/${safeSegment(entry.webhookId)}.sealed`;
  }

  async save(entry: { accountId: string; webhookId: string; url: string; secret: string }): Promise<void> {
    const name = SealedWebhookSecretStore.nameOf(entry);
    const record: SecretEntry = { ...entry, savedAt: new Date(this.clock()).toISOString() };
    await this.options.objects.put(name, Buffer.from(JSON.stringify(this.seal(name, record))));
    this.cache = undefined;
  }

  /** True when the record exists and opens; a record sealed with an older key is sealed again with the active one. */
  async has(entry: { accountId: string; webhookId: string }): Promise<boolean> {
    const name = SealedWebhookSecretStore.nameOf(entry);
    const bytes = await this.options.objects.get(name);
    if (!bytes) return false;
    const opened = this.open(name, bytes);
    if (!opened.entry) return false;
    if (opened.keyId !== this.options.keys.activeKeyId) {
      await this.options.objects.put(name, Buffer.from(JSON.stringify(this.seal(name, opened.entry))));
    }
    return true;
  }

  async secretsForVerification(options: { fresh?: boolean } = {}): Promise<string[]> {
    const now = this.clock();
    const cacheMs = this.options.cacheMs ?? 30_000;
    const stale = !this.cache || now - this.cache.at >= cacheMs;
    const freshAllowed = options.fresh && now - this.lastFreshAt >= (this.options.minRefreshMs ?? 1_000);
    if (!stale && !freshAllowed) return this.cache!.secrets;
    if (freshAllowed) this.lastFreshAt = now;
    this.reading ??= this.readAll().finally(() => (this.reading = undefined));
    return await this.reading;
  }

  /** Reads and opens every record now (the receiver's check uses the counts). */
  async readAll(): Promise<string[]> {
    const names = await this.options.objects.list(SEALED_SECRETS_PREFIX);
    const reading: SealedSecretsReading = { records: 0, opened: 0, unknownKey: 0, damaged: 0, keyIds: [] };
    const secrets: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.sealed'))) {
      const bytes = await this.options.objects.get(name);
      if (!bytes) continue;
      reading.records += 1;
      const opened = this.open(name, bytes);
      if (opened.entry) {
        reading.opened += 1;
        secrets.push(opened.entry.secret);
        if (!reading.keyIds.includes(opened.keyId!)) reading.keyIds.push(opened.keyId!);
      } else if (opened.problem === 'unknown_key') {
        reading.unknownKey += 1;
        this.options.warn?.(`${name}: sealed with key "${opened.keyId}", which this process does not hold`);
      } else {
        reading.damaged += 1;
        this.options.warn?.(`${name}: the sealed webhook secret is damaged or was sealed for another name`);
      }
    }
    this.lastReading = reading;
    this.cache = { at: this.clock(), secrets };
    return secrets;
  }

  private seal(name: string, entry: SecretEntry): SealedRecord {
    const { activeKeyId, keys } = this.options.keys;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.get(activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(name));
    const data = Buffer.concat([iv, cipher.update(JSON.stringify(entry)), cipher.final(), cipher.getAuthTag()]);
    return { format: FORMAT, keyId: activeKeyId, sealed: data.toString('base64') };
  }

  private open(name: string, bytes: Uint8Array): { entry?: SecretEntry; keyId?: string; problem?: 'unknown_key' | 'damaged' } {
    let record: SealedRecord;
    try {
      record = JSON.parse(Buffer.from(bytes).toString('utf8')) as SealedRecord;
    } catch {
      return { problem: 'damaged' };
    }
    if (record?.format !== FORMAT || typeof record.keyId !== 'string' || typeof record.sealed !== 'string') return { problem: 'damaged' };
    const key = this.options.keys.keys.get(record.keyId);
    if (!key) return { keyId: record.keyId, problem: 'unknown_key' };
    const data = Buffer.from(record.sealed, 'base64');
    if (data.length < IV_BYTES + TAG_BYTES) return { keyId: record.keyId, problem: 'damaged' };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(name));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      const entry = JSON.parse(plain.toString('utf8')) as SecretEntry;
      if (typeof entry?.secret !== 'string') return { keyId: record.keyId, problem: 'damaged' };
      return { entry, keyId: record.keyId };
    } catch {
      return { keyId: record.keyId, problem: 'damaged' };
    }
  }
}

/** The webhook secret store of a process, and what its receiver verifies with. */
export interface WebhookSecretsSetup {
  store: WebhookSecretStore;
  source: ReceiverSecretSource;
  /** `sealed (<blob location>/webhook-secrets/)` or `file (<path>)`, for startup lines and checks. */
  description: string;
  sealed?: SealedWebhookSecretStore;
}

/**
 * Chooses the store: with a payload key (STUDYFLOW_CODEC_KEYS / STUDYFLOW_CODEC_KEY_FILE, or the one
 * `studyflow dev` made here) secrets are sealed beside the ID lists, where every receiver can read them.
 * Without a key, a local blob directory keeps the single-machine file (STUDYFLOW_WEBHOOK_SECRETS_FILE,
 * owner-only); object storage refuses to start, since it would have to hold them in the clear.
 */
export function webhookSecretsFromEnv(
  env: Record<string, string | undefined>,
  blobs: BlobStore,
  warn: (message: string) => void = (m) => process.stderr.write(`studyflow: ${m}\n`),
): WebhookSecretsSetup {
  const keys = loadCodecKeys(withDevCodecKey(env));
  if (keys) {
    const sealed = new SealedWebhookSecretStore({ objects: blobs.objects, keys, warn });
    return { store: sealed, source: sealed, sealed, description: `sealed with key ${keys.activeKeyId} in ${blobs.location}/${SEALED_SECRETS_PREFIX}` };
  }
  if (blobs.location.startsWith('s3://')) {
    throw new Error(
      `webhook secrets are shared through ${blobs.location} sealed with the payload key: set STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE (the same key on every worker and receiver)`,
    );
  }
  const file = env.STUDYFLOW_WEBHOOK_SECRETS_FILE ?? path.join('.studyflow', 'secrets', 'webhooks.json');
  const store = new FileWebhookSecretStore(file);
  return { store, source: fileSecretSource(store), description: `file ${file} (this machine only)` };
}
