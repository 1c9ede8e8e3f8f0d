import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord, SandboxStateData } from '../../sandbox/core/state-records';
import { eventually, startTestStack, threeMarketStudy, writeStudy, type TestStack } from './harness';
import { syntheticRsids } from '../helpers/respondent-ids';

// The Demand API goes away twice during one apply, each time while jobs are Processing: first while
// the ID-list uploads run, then while the launches run. Each time the sandbox is closed (open
// connections cut) and started again on the same port from its state file. The study must still
// converge with exactly the desired resources: one project, three live target groups, one fielding
// run each, one exclusion group with its two members, and the ID lists uploaded once.

const RSIDS = syntheticRsids('restart-sandbox', 120);
const KEYS = ['us', 'uk', 'de'];

const STUDY = threeMarketStudy({ studyId: 'sandbox-restart', title: 'Sandbox restart', reference: 'PO-SANDBOX-RESTART', urlPrefix: 'restart', waveMembers: ['us', 'uk'] });

const JOB_DURATION_MS = 4000;
/** How long the API stays away: activities meet refused connections and retry. */
const DOWN_FOR_MS = 2000;

function processingJobsInStateFile(file: string, kind: JobRecord['kind']): JobRecord[] {
  const state = JSON.parse(fs.readFileSync(file, 'utf8')) as SandboxStateData;
  return Object.values(state.jobs).filter((j) => j.kind === kind && j.status === 'Processing');
}

describe('the sandbox restarted from its state file in the middle of an apply', () => {
  let t: TestStack;
  let stateFile: string;
  beforeAll(async () => {
    t = await startTestStack('restart-sandbox');
    stateFile = path.join(t.dir, 'sandbox-state.json');
    fs.writeFileSync(path.join(t.dir, 'past.txt'), `${RSIDS.join('\n')}\n`);
  });
  afterAll(async () => t?.stop());

  it('finishes the study with exactly the desired resources after two restarts while jobs are Processing', async () => {
    const file = writeStudy(t.dir, 'study.yaml', STUDY);
    // Faults are not persisted: set the slow jobs again after every restart.
    t.stack.sandbox.setFaults({ job_duration_ms: JOB_DURATION_MS });
    const port = new URL(t.stack.sandbox.baseUrl).port;
    expect((await t.cli(['apply', file, '--no-wait'])).code).toBe(0);

    // 1. Uploads are Processing (persisted in the state file): restart.
    const uploads = await eventually(async () => {
      const jobs = processingJobsInStateFile(stateFile, 'exclusion_upload');
      return jobs.length > 0 ? jobs : undefined;
    }, 90_000, 100);
    await t.restartSandbox({ downForMs: DOWN_FOR_MS });
    expect(new URL(t.stack.sandbox.baseUrl).port).toBe(port);
    expect(t.stack.sandbox.state().jobs[uploads[0].id]).toBeDefined();
    t.stack.sandbox.setFaults({ job_duration_ms: JOB_DURATION_MS });
    // The upload job came back from the state file and is polled to its end on the restarted sandbox.
    await eventually(async () => (t.stack.sandbox.requests().some((r) => r.method === 'GET' && r.path.endsWith(`/${uploads[0].id}`) && r.status === 200) ? true : undefined), 60_000);

    // 2. Launches are Processing: restart again.
    const launches = await eventually(async () => {
      const jobs = processingJobsInStateFile(stateFile, 'launch_from_draft');
      return jobs.length > 0 ? jobs : undefined;
    }, 120_000, 100);
    await t.restartSandbox({ downForMs: DOWN_FOR_MS });
    expect(t.stack.sandbox.state().jobs[launches[0].id]).toBeDefined();

    const status = await eventually(
      async () => {
        const s = await t.status('1001', 'sandbox-restart');
        return s.phase === 'converged' && s.appliedRevision === s.revision ? s : undefined;
      },
      180_000,
      500,
    );
    expect(Object.values(status.targetGroups).map((x) => x.phase)).toEqual(KEYS.map(() => 'live'));

    const state = t.stack.sandbox.state();
    const projects = Object.values(state.projects);
    expect(projects.map((p) => p.project_customer_reference_number)).toEqual(['PO-SANDBOX-RESTART']);
    const tgs = Object.values(state.target_groups);
    expect(tgs.map((x) => x.target_group_customer_reference_number).sort()).toEqual(KEYS.map((k) => `sandbox-restart_${k}`).sort());
    expect(tgs.every((x) => x.status === 'live' && x.project_id === projects[0].id)).toBe(true);
    const byKey = (key: string) => tgs.find((x) => x.target_group_customer_reference_number === `sandbox-restart_${key}`)!;
    expect(Object.values(state.fielding_runs).map((r) => r.target_group_id).sort()).toEqual(tgs.map((x) => x.id).sort());
    const groups = Object.values(state.exclusion_groups);
    expect(groups.map((g) => g.tag)).toEqual(['Sandbox restart waves']);
    expect([...groups[0].target_group_ids].sort()).toEqual([byKey('us').id, byKey('uk').id].sort());
    for (const key of ['us', 'uk']) {
      expect([...state.id_exclusion_lists[byKey(key).id].rsid].sort()).toEqual([...RSIDS].sort());
    }
    expect(state.id_exclusion_lists[byKey('de').id]?.rsid ?? []).toEqual([]);
    // Every upload and launch job that reached the API settled; none is left Processing.
    expect(Object.values(state.jobs).filter((j) => j.status === 'Processing')).toEqual([]);
    expect(Object.values(state.jobs).filter((j) => j.kind === 'launch_from_draft' && j.status === 'Completed')).toHaveLength(KEYS.length);
    expect(Object.values(state.jobs).filter((j) => j.kind === 'exclusion_upload')).toHaveLength(2);
  });

  it('keeps the client secret, tokens and respondent IDs out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET, ...RSIDS.slice(0, 10)], 'restart-sandbox');
    expect(scanned.workflows).toBeGreaterThanOrEqual(4);
  });
});
