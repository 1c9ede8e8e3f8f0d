// The real sandbox (sandbox/index.ts) plus activities wired to it through a dedicated keep-alive agent.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { createBlobStore, type BlobStore } from '../../../blobs/blob-store';
import { createApiConfig, type ApiConfig, type ApiTimeouts } from '../../../api/http/api-config';
import { createDemandApiClient, type DemandApiClient, type DemandApiClientOptions } from '../../../api/http/demand-api-client';
import { createActivities } from '../../../activities/index';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../sandbox/index';
import { testSandboxOptions } from '../../helpers/test-profile';

export interface SandboxHarness {
  sandbox: RunningSandbox;
  blobs: BlobStore;
  /** A new client + activities (own token cache) on the shared agent. */
  connect(options?: { timeouts?: Partial<ApiTimeouts>; client?: Partial<DemandApiClientOptions> }): { api: DemandApiClient; activities: ReturnType<typeof createActivities> };
  api: DemandApiClient;
  activities: ReturnType<typeof createActivities>;
  secrets: Map<string, string>;
  close(): Promise<void>;
}

/** The client settings of a running sandbox: its URLs, its seeded credentials and the version header of its dialect. */
export function sandboxApiConfig(sandbox: RunningSandbox, timeouts?: Partial<ApiTimeouts>): ApiConfig {
  return createApiConfig({
    // The client speaks the sandbox's dialect: the reference's (`cint`) against a cint sandbox, else the spec's.
    profile: sandbox.info.dialect === 'cint' ? 'cint' : 'sandbox',
    versionHeader: sandbox.info.version_header,
    baseUrl: sandbox.info.base_url,
    authUrl: sandbox.info.auth_url,
    audience: sandbox.info.audience,
    clientId: sandbox.info.client_id,
    clientSecret: sandbox.info.client_secret,
    timeouts,
  });
}

export async function startSandboxHarness(options: SandboxOptions = {}): Promise<SandboxHarness> {
  // The run's dialect (STUDYFLOW_TEST_PROFILE) unless the test asks for one.
  const sandbox = await startSandbox({ quiet: true, ...testSandboxOptions(), ...options });
  const dir = await mkdtemp(join(tmpdir(), 'studyflow-sandbox-blobs-'));
  const blobs = createBlobStore({ dir });
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const secrets = new Map<string, string>();
  const connect: SandboxHarness['connect'] = (opts = {}) => {
    const config = sandboxApiConfig(sandbox, opts.timeouts);
    const api = createDemandApiClient({ ...opts.client, config, dispatcher: agent });
    const activities = createActivities({
      api,
      blobs,
      webhookSecrets: {
        save: async ({ accountId, webhookId, secret }) => {
          secrets.set(`${accountId}/${webhookId}`, secret);
        },
        has: async ({ accountId, webhookId }) => secrets.has(`${accountId}/${webhookId}`),
      },
    });
    return { api, activities };
  };
  const { api, activities } = connect();
  return {
    sandbox,
    blobs,
    connect,
    api,
    activities,
    secrets,
    async close() {
      await agent.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };

/** A valid draft target group body for the seeded account 1001. */
export function draftTargetGroup(overrides: Record<string, unknown> = {}) {
  return {
    name: 'US general population',
    business_unit_id: '2001',
    locale: 'eng_us',
    fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' },
    fielding_assistant_assignment: {},
    allocations: { open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] } },
    expected_incidence_rate: 0.35,
    expected_length_of_interview_minutes: 12,
    filling_goal: 400,
    project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001',
    collects_pii: false,
    ...overrides,
  };
}
