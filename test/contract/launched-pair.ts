// Shared set-up of the contract tests that need a launched target group beside a draft: the real sandbox, a
// client that records every exchange, and one project holding both (the first launched from its draft and its
// launch job awaited). Each test file keeps its own draft body and reference numbers.
import { Agent } from 'undici';
import { expect } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient, type DemandApiClient } from '../../api/http/demand-api-client';
import { createActivities, type TargetGroupDesired } from '../../activities/index';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testSandboxOptions } from '../helpers/test-profile';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { recordingClient, type RecordedExchange } from './recording-client';

export const CONTRACT_CTX = { accountId: '1001', apiVersion: '2025-12-18' as const };

export interface RecordingSandbox {
  sandbox: RunningSandbox;
  agent: Agent;
  /** The client without recording, for answers a test fakes around it. */
  inner: DemandApiClient;
  activities: ReturnType<typeof createActivities>;
}

/** The sandbox and the activities over a client that appends every exchange to `exchanges` (no blobs, no secrets). */
export async function startRecordingSandbox(exchanges: RecordedExchange[]): Promise<RecordingSandbox> {
  const sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const inner = createDemandApiClient({ config: sandboxApiConfig(sandbox), dispatcher: agent });
  return { sandbox, agent, inner, activities: activitiesOver(recordingClient(inner, exchanges)) };
}

/** The activities over `api`, with no blob store and no webhook secrets (the operations under test use neither). */
export function activitiesOver(api: DemandApiClient): ReturnType<typeof createActivities> {
  return createActivities({ api, blobs: createBlobStore({ dir: '/nonexistent-blob-dir-unused' }), webhookSecrets: { save: async () => undefined, has: async () => false } });
}

export interface LaunchedPairIds {
  projectId: string;
  /** Launched from its draft; its launch job completed. */
  launched: string;
  /** Left a draft. */
  draft: string;
  runId: string;
}

/**
 * A project (`<label>`, reference `PO-<KEY>-1`) with two target groups from `draft`: `<key>_us` launched and
 * `<key>_uk` (named `<label> uk`) left a draft. Idempotency keys start with `<key>/`.
 */
export async function projectWithLaunchedAndDraft(
  a: RecordingSandbox['activities'],
  options: { key: string; label: string; projectManagerId: string; draft: TargetGroupDesired },
): Promise<LaunchedPairIds> {
  const ctx = CONTRACT_CTX;
  const { key, label } = options;
  const projectId = (await a.ensureProject({ ctx, idempotencyKey: `${key}/p`, desired: { name: label, project_manager_id: options.projectManagerId, project_customer_reference_number: `PO-${key.toUpperCase()}-1` } })).project.id;
  const launched = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: `${key}/tg-us`, desired: { ...options.draft, target_group_customer_reference_number: `${key}_us` } })).targetGroup.id;
  const draft = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: `${key}/tg-uk`, desired: { ...options.draft, name: `${label} uk`, target_group_customer_reference_number: `${key}_uk` } })).targetGroup.id;
  // launchFromDraft reads the group first (GET TG: a draft), then starts the job.
  const { jobId } = await a.launchFromDraft({ ctx, projectId, targetGroupId: launched, idempotencyKey: `${key}/launch`, endFieldingAt: new Date(Date.now() + 10 * 86_400_000).toISOString() });
  for (let i = 0; i < 200; i += 1) {
    const job = await a.getLaunchJob({ ctx, projectId, targetGroupId: launched, jobId: jobId! });
    if (job.status === 'Completed') return { projectId, launched, draft, runId: job.fieldingRunId ?? '' };
    expect(job.status).toBe('Processing');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the launch job of ${key}_us did not complete`);
}
