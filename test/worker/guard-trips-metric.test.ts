// studyflow_guard_trips_total is set by the worker: the activities `createWorkerActivities` builds for the worker
// process count a pause a guard asked for (`cause: { guard }`) in the worker's metrics when it paused the run, here
// against a real sandbox (a launched target group's fielding run), and not again for a retry that finds it paused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { devSandboxEnv } from '../../api/http/api-environment';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { createWorkerActivities } from '../../worker/worker-activities';
import { useTestSandbox } from '../fixtures/sandbox';

const { sb, api } = useTestSandbox({ faultsBeforeEach: { job_duration_ms: 20 } });
const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-guard-metric-'));
afterAll(() => fs.rmSync(blobDir, { recursive: true, force: true }));

it("counts a guard's pause by guard kind in the worker's metrics, once", async () => {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2027-01-01T00:00:00Z' } });
  expect(launch.status, launch.text).toBe(201);
  await api.waitForJob(launch.headers.get('location')!);
  const runs = (await api.req('GET', `${made.tgPath}/fielding-runs`)).body.data as { id: string }[];

  const metrics = createStudyflowMetrics();
  const env = { ...devSandboxEnv(sb.info.base_url, sb.info.auth_url), STUDYFLOW_API_PROFILE: sb.info.dialect === 'cint' ? 'cint' : 'sandbox', STUDYFLOW_BLOB_DIR: blobDir };
  const { activities } = createWorkerActivities(env, { metrics });
  const base = { ctx: { accountId: '1001', apiVersion: '2025-12-18' as const }, projectId: made.project.id as string, targetGroupId: made.tg.id as string, fieldingRunId: runs[0].id };
  const { etag } = await activities.getFieldingRun(base);
  const paused = await activities.pauseFieldingRun({ ...base, etag: etag as string, cause: { guard: 'incidence_below' } });
  expect(paused.outcome).toBe('applied');
  // The activity retried after a lost answer: the run is paused already, nothing more is counted.
  const again = await activities.pauseFieldingRun({ ...base, etag: etag as string, cause: { guard: 'incidence_below' } });
  expect(again.outcome).toBe('already_in_state');
  expect(metrics.guardTrips.value({ guard: 'incidence_below' })).toBe(1);
  expect(metrics.registry.render()).toMatch(/^studyflow_guard_trips_total\{guard="incidence_below"\} 1$/m);
});
