// readQuotaCompletes (api/operations/live-target-groups.ts) and its activity readQuotaFigures against the sandbox: one
// list_profiles of a launched group with quotas, each quota's goal, completes and prescreens as the exchange counts
// them (QuotaDetailsV3), named by the profile and the quota; a quota the sandbox's quota_fill drives behind reads
// behind. The activity refuses a bad input by name before any request, and its result carries no respondent id.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { apiCaller } from '../../api/operations/caller';
import { readQuotaCompletes } from '../../api/operations/live-target-groups';
import type { RunningSandbox } from '../../sandbox/index';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { activitiesOver } from '../contract/launched-pair';
import { SandboxTestClient, startTestSandbox } from '../sandbox/sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
let agent: Agent;
const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };

beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
  agent = new Agent({ keepAliveTimeout: 1000 });
  const res = await api.admin('PUT', '/fielding/settings', { pool_size: 4000, speed: 1, seed: 'quota-completes' });
  expect(res.status, res.text).toBe(200);
});
afterAll(async () => {
  await agent?.close();
  await sb?.close();
});

const AGE = {
  object: 'regular', id: 'age', name: 'Age', quotas_enabled: true, targets: [
    { id: 'young', conditions: [{ object: 'range', question_id: 42, min: 18, max: 44 }], quota: { name: 'age 18-44', completes_goal: 100 } },
    { id: 'old', conditions: [{ object: 'range', question_id: 42, min: 45, max: 99 }], quota: { name: 'age 45+', completes_goal: 100 } },
  ],
};

async function liveGroupWithQuotas() {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 200, expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, profiling: { profile_adjustment_type: 'nominal', profiles: [AGE] } });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(launch.status, launch.text).toBe(201);
  await api.waitForJob(launch.headers.get('location')!);
  return { projectId: made.project.id as string, targetGroupId: made.tg.id as string, tgPath: made.tgPath };
}

describe('readQuotaCompletes', () => {
  it('reads each quota\'s goal, completes and prescreens from one list_profiles; a quota driven behind reads behind', async () => {
    const { projectId, targetGroupId, tgPath } = await liveGroupWithQuotas();
    const set = await api.admin('PUT', `/fielding/target-groups/${targetGroupId}/settings`, { quota_fill: { 'age/old': 0.1 } });
    expect(set.status, set.text).toBe(200);
    // Field until the young quota is a third full: the old one is far behind it (both goals 100).
    for (let i = 0; i < 48; i += 1) {
      expect((await api.admin('POST', '/fielding/advance', { minutes: 10 })).status).toBe(200);
      const targets = (await api.req('GET', `${tgPath}/profiles`)).body.profiles[0].targets as { quota: { completes: number } }[];
      if (targets[0].quota.completes >= 34) break;
    }

    const client = createDemandApiClient({ config: sandboxApiConfig(sb), dispatcher: agent });
    const requests: string[] = [];
    const caller = apiCaller(client, ctx);
    const counting = { ...caller, send: (req: Parameters<typeof caller.send>[0]) => (requests.push(`${req.method} ${req.path}`), caller.send(req)) } as typeof caller;
    const read = await readQuotaCompletes(counting, { projectId, targetGroupId });
    expect(requests).toEqual([`GET ${tgPath}/profiles`]);

    // The same figures as the exchange's answer, quota by quota.
    const raw = (await api.req('GET', `${tgPath}/profiles`)).body.profiles[0].targets as { quota: { completes: number; prescreens: number } }[];
    expect(read.notReported).toBe(0);
    expect(read.quotas).toEqual([
      { profile: 'Age', quota: 'age 18-44', goal: 100, completes: raw[0].quota.completes, prescreens: raw[0].quota.prescreens },
      { profile: 'Age', quota: 'age 45+', goal: 100, completes: raw[1].quota.completes, prescreens: raw[1].quota.prescreens },
    ]);
    const [young, old] = read.quotas;
    expect(young.completes).toBeGreaterThan(0);
    expect(old.completes).toBeLessThan(young.completes / 2);
    expect(old.prescreens).toBeGreaterThanOrEqual(old.completes);
  });
});

describe('the readQuotaFigures activity', () => {
  it('refuses a missing id by name without a request; answers names and counts only', async () => {
    const activities = activitiesOver(createDemandApiClient({ config: sandboxApiConfig(sb), dispatcher: agent }));
    const refused = await activities.readQuotaFigures({ ctx, projectId: '', targetGroupId: 'x' }).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect((refused as Error).message).toMatch(/readQuotaFigures.*projectId/);

    const { projectId, targetGroupId } = await liveGroupWithQuotas();
    await api.admin('POST', '/fielding/advance', { minutes: 60 });
    const result = await activities.readQuotaFigures({ ctx, projectId, targetGroupId });
    expect(result.quotas.map((q) => [q.profile, q.quota, q.goal])).toEqual([['Age', 'age 18-44', 100], ['Age', 'age 45+', 100]]);
    for (const q of result.quotas) expect(Object.keys(q).sort()).toEqual(['completes', 'goal', 'prescreens', 'profile', 'quota']);
    // No respondent id of the group's sessions anywhere in the result.
    const sessions = (await api.admin('GET', `/fielding/target-groups/${targetGroupId}/sessions`)).body.data as { respondent_id?: string; id?: string }[];
    const text = JSON.stringify(result);
    for (const s of sessions.slice(0, 50)) for (const id of [s.respondent_id, s.id]) if (id) expect(text).not.toContain(id);
  });
});
