// Inside Temporal (MockActivityEnvironment): long uploads heartbeat progress and stop when the activity is cancelled.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityCancellationSignal, CANCELLATION_LISTENERS_MAX, currentActivityContext } from '../../activities/activity-context';
import { createBlobStore, type StoredIdList } from '../../blobs/blob-store';
import { createApiConfig } from '../../api/http/api-config';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { createActivities } from '../../activities/index';
import { startLoopbackApi, type LoopbackApi } from './helpers/loopback-api';
import { rejectionOf } from './helpers/mock-api';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
let dir: string;
let server: LoopbackApi;
let dispatcher: Agent;
let activities: ReturnType<typeof createActivities>;
let list: StoredIdList;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'studyflow-ctx-'));
  server = await startLoopbackApi();
  dispatcher = new Agent();
  const blobs = createBlobStore({ dir });
  const config = createApiConfig({ baseUrl: server.baseUrl, authUrl: server.authUrl, audience: 'aud', clientId: 'c', clientSecret: 'loopback-secret' });
  activities = createActivities({ api: createDemandApiClient({ config, dispatcher }), blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
  // ~12 MB: larger than loopback socket buffers, so a paused server holds the upload mid-way.
  list = await blobs.put(Readable.from((function* () {
    for (let i = 0; i < 100_000; i += 1) yield `${randomUUID()}-${randomUUID()}-${randomUUID()}-${i}\n`;
  })()));
}, 60_000);

afterAll(async () => {
  await dispatcher.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const input = (key: string) => ({ ctx, projectId: 'p1', targetGroupId: 'tg1', entityType: 'RSID' as const, list, idempotencyKey: key });

/** MaxListenersExceededWarnings Node emits while `work` adds `n` abort listeners to the signal it returns. */
async function leakWarnings(signalOf: () => AbortSignal, n: number): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (w: Error) => {
    if (w.name === 'MaxListenersExceededWarning') warnings.push(w.message);
  };
  process.on('warning', onWarning);
  try {
    const signal = signalOf();
    const listeners = Array.from({ length: n }, () => () => undefined);
    for (const l of listeners) signal.addEventListener('abort', l);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const l of listeners) signal.removeEventListener('abort', l);
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('activity context', () => {
  it("lets a batch activity's calls all listen on its cancellation signal without a leak warning", async () => {
    // The check can fail: a plain signal warns past 10 listeners.
    expect(await leakWarnings(() => new AbortController().signal, 11)).toHaveLength(1);
    const env = new MockActivityEnvironment();
    const warnings = await env.run(async () => leakWarnings(() => activityCancellationSignal() as AbortSignal, CANCELLATION_LISTENERS_MAX));
    expect(warnings).toEqual([]);
  });

  it('is absent outside Temporal, and activities still run', async () => {
    expect(currentActivityContext()).toBeUndefined();
    expect((await activities.uploadIdList(input('outside'))).jobId).toBeTruthy();
  });

  it('heartbeats upload progress in bytes', async () => {
    const env = new MockActivityEnvironment();
    const beats: { uploadedBytes: number; totalBytes: number }[] = [];
    env.on('heartbeat', (details) => beats.push(details as { uploadedBytes: number; totalBytes: number }));
    await env.run(activities.uploadIdList, input('beats'));
    expect(beats.length).toBeGreaterThan(5);
    expect(beats.at(-1)).toEqual({ uploadedBytes: list.bytes, totalBytes: list.bytes });
    const sent = beats.map((b) => b.uploadedBytes);
    expect([...sent].sort((a, b) => a - b)).toEqual(sent);
  });

  it('aborts the upload when Temporal cancels the activity', async () => {
    const env = new MockActivityEnvironment();
    let release!: () => void;
    server.beforeBody = () => new Promise<void>((resolve) => {
      release = resolve;
    });
    const received = server.received.length;
    try {
      const running = env.run(activities.uploadIdList, input('cancelled'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      env.cancel();
      const error = await rejectionOf(running);
      expect(String(error?.name ?? error)).toMatch(/Cancel|Abort/i);
    } finally {
      server.beforeBody = async () => undefined;
      release?.();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.received.length).toBe(received); // the server never got a complete request
  });
});
