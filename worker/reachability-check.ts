// What a worker or webhook receiver process needs to reach, checked from where it runs: Temporal
// (connection, namespace), the namespace's search attributes (each one named when missing) and, for a
// receiver, a visibility query by them; the blob store (read and write), the payload key, and the
// webhook secrets. Each check gives ok or a named problem; nothing here prints or holds a secret.
// (`studyflow doctor` checks the Demand API credentials; these checks are about the deployment.)
import os from 'node:os';
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import type { BlobStore } from '../blobs/blob-store';
import { loadCodecKeys } from '../temporal/codec-keys';
import { webhookSecretsFromEnv } from '../webhooks/sealed-webhook-secrets';
import { connectClient, temporalSettings, withDevCodecKey, workflowTaskQueue } from '../temporal/temporal-connection';
import { missingSearchAttributes, requireNamespace, SearchAttributesMissingError } from './namespace-check';
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/search-attributes';

export interface ReachabilityResult {
  /** What was checked: `temporal`, `search attributes`, `blob store`, `payload key`, `webhook secrets`. */
  name: string;
  ok: boolean;
  /** Where or what, when ok; the problem, when not. Never a secret. */
  detail: string;
}

export type CheckedRole = 'worker' | 'receiver';

/** Runs every check of `role` in order and returns all results (a failing one does not stop the rest). */
export async function checkReachability(role: CheckedRole, env: NodeJS.ProcessEnv): Promise<ReachabilityResult[]> {
  const results: ReachabilityResult[] = [];
  const check = async (name: string, run: () => Promise<string>): Promise<void> => {
    try {
      results.push({ name, ok: true, detail: await run() });
    } catch (error) {
      results.push({ name, ok: false, detail: (error instanceof Error ? error.message : String(error)).split('\n')[0] });
    }
  };

  let temporal: Awaited<ReturnType<typeof connectClient>> | undefined;
  const settings = temporalSettings(env);
  try {
    let namespaceExists = false;
    await check('temporal', async () => {
      temporal = await connectClient(settings, env);
      await temporal.connection.workflowService.getSystemInfo({});
      await requireNamespace(temporal.connection.workflowService, settings.namespace, settings.address);
      namespaceExists = true;
      return `${settings.address}, namespace ${settings.namespace}${role === 'worker' ? `, task queue ${workflowTaskQueue(env)}` : ''}`;
    });
    await check('search attributes', async () => {
      if (!temporal || !namespaceExists) throw new Error(`not checked: namespace ${settings.namespace} is not reachable`);
      const missing = await missingSearchAttributes(temporal.connection.workflowService, settings.namespace);
      if (missing.length) throw new SearchAttributesMissingError(settings.namespace, missing);
      if (role === 'receiver') {
        // Receivers find target-group workflows through visibility (a search attribute query).
        for await (const _ of temporal.client.workflow.list({ query: 'StudyflowTargetGroupId IS NOT NULL', pageSize: 1 })) break;
      }
      return `all ${Object.keys(SEARCH_ATTRIBUTE_TYPES).length} registered in namespace ${settings.namespace}${role === 'receiver' ? ', visibility queries by them answer' : ''}`;
    });
  } finally {
    await temporal?.connection.close();
  }

  await check('payload key', async () => {
    const keys = loadCodecKeys(withDevCodecKey(env));
    if (!keys) {
      if (env.STUDYFLOW_BLOB_URL?.startsWith('s3://')) throw new Error('no payload key (STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE): needed to seal webhook secrets in object storage');
      return 'none: payloads stay clear text, webhook secrets stay in a local file';
    }
    return `active key ${keys.activeKeyId}, ${keys.keys.size} key(s) from ${keys.source}${keys.warnings.length ? `; ${keys.warnings.join('; ')}` : ''}`;
  });

  let blobs: BlobStore | undefined;
  await check('blob store', async () => {
    blobs = blobStoreFromEnv(env);
    // A list of the lists' prefix (read), then a probe object written and read back (the worker saves secrets there).
    await blobs.objects.list('sha256/');
    if (role === 'worker') {
      const name = `checks/${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host'}.probe`;
      const written = Buffer.from(`studyflow ${role} check ${new Date().toISOString()}`);
      await blobs.objects.put(name, written);
      const read = await blobs.objects.get(name);
      if (!read || Buffer.compare(Buffer.from(read), written) !== 0) throw new Error(`${blobs.location}: a probe object did not read back as written`);
      return `${blobs.location} (read and write)`;
    }
    return `${blobs.location} (read)`;
  });

  await check('webhook secrets', async () => {
    if (!blobs) throw new Error('not checked: the blob store is not usable');
    const setup = webhookSecretsFromEnv(env, blobs, () => undefined);
    if (!setup.sealed) {
      const count = (await setup.source.secretsForVerification()).length;
      return `${setup.description}: ${count} secret(s)`;
    }
    await setup.sealed.readAll();
    const reading = setup.sealed.lastReading!;
    if (reading.unknownKey > 0 || reading.damaged > 0) {
      throw new Error(`${setup.description}: ${reading.records} record(s), ${reading.unknownKey} sealed with a key not held, ${reading.damaged} damaged`);
    }
    return `${setup.description}: ${reading.opened} of ${reading.records} record(s) open`;
  });
  return results;
}
