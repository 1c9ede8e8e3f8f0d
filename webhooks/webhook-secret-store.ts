import fs from 'node:fs';
import path from 'node:path';
import type { WebhookSecretStore } from '../activities/activity-deps';

interface StoredSecret {
  accountId: string;
  webhookId: string;
  url: string;
  secret: string;
  savedAt: string;
}

/**
 * Webhook signing secrets in a local file readable by the owner only (the worker's secret store
 * on one machine). Secrets never enter workflow history; the receiver reads them from here.
 * A deployment with several machines puts the same interface over its secret manager.
 */
export class FileWebhookSecretStore implements WebhookSecretStore {
  constructor(readonly file: string) {}

  private read(): StoredSecret[] {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8')) as StoredSecret[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new Error(`webhook secret store ${this.file} is unreadable: ${(error as Error).message}`);
    }
  }

  async save(entry: { accountId: string; webhookId: string; url: string; secret: string }): Promise<void> {
    const entries = this.read().filter((e) => !(e.accountId === entry.accountId && e.webhookId === entry.webhookId));
    entries.push({ ...entry, savedAt: new Date().toISOString() });
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(entries, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
    await Promise.resolve();
  }

  async has(entry: { accountId: string; webhookId: string }): Promise<boolean> {
    return await Promise.resolve(this.read().some((e) => e.accountId === entry.accountId && e.webhookId === entry.webhookId));
  }

  /** Every secret held for an account (the receiver verifies against all of them during rotation). */
  secretsFor(accountId: string): string[] {
    return this.read()
      .filter((e) => e.accountId === accountId)
      .map((e) => e.secret);
  }

  /** Every secret held. */
  allSecrets(): string[] {
    return this.read().map((e) => e.secret);
  }
}

/** What a webhook receiver verifies signatures with: every secret it may need, cached or read anew. */
export interface ReceiverSecretSource {
  /**
   * Every currently held signing secret. `fresh` asks to read the store again (a delivery failed
   * verification against the cached set: a webhook may have been created since); a source may
   * rate-limit such reads.
   */
  secretsForVerification(options?: { fresh?: boolean }): Promise<string[]>;
}

/** The single-machine store as a receiver's source (it reads the file on every call). */
export function fileSecretSource(store: FileWebhookSecretStore): ReceiverSecretSource {
  return { secretsForVerification: () => Promise.resolve(store.allSecrets()) };
}
