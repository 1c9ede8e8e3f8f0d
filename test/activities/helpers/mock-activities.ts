// createActivities over a MockAgent client, with an in-memory webhook secret store and a temp blob store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlobStore, type BlobStore } from '../../../blobs/blob-store';
import { createActivities, type ActivityDeps } from '../../../activities/index';
import type { DemandApiClientOptions } from '../../../api/http/demand-api-client';
import { createMockApi, type MockApi } from './mock-api';

export interface MockActivities extends MockApi {
  activities: ReturnType<typeof createActivities>;
  secrets: Map<string, string>;
  blobs: BlobStore;
  /** Stores `text` in the activities' blob store and returns the reference activities take. */
  putList(text: string): Promise<{ ref: string; sha256: string; count: number }>;
}

/** `options` go to the client (e.g. a `config` with another connection profile). */
export function createMockActivities(options: Partial<DemandApiClientOptions> & { fieldingMetrics?: ActivityDeps['fieldingMetrics'] } = {}): MockActivities {
  const { fieldingMetrics, ...clientOptions } = options;
  const mock = createMockApi(clientOptions);
  mock.serveTokens({ times: 1 });
  const secrets = new Map<string, string>();
  const blobs = createBlobStore({ dir: mkdtempSync(join(tmpdir(), 'studyflow-mock-blobs-')) });
  const activities = createActivities({
    api: mock.client,
    blobs,
    webhookSecrets: {
      save: async ({ accountId, webhookId, secret }) => {
        secrets.set(`${accountId}/${webhookId}`, secret);
      },
      has: async ({ accountId, webhookId }) => secrets.has(`${accountId}/${webhookId}`),
    },
    listPageSize: 2,
    ...(fieldingMetrics ? { fieldingMetrics } : {}),
  });
  const putList = async (text: string) => {
    const stored = await blobs.put([text]);
    return { ref: stored.ref, sha256: stored.sha256, count: stored.count };
  };
  return { ...mock, activities, secrets, blobs, putList };
}
