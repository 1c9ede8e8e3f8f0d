import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxStateData } from '../../sandbox/core/state-records';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { statusQuery, studyWorkflowId, type StudyStatus } from '../../workflows/messages';
import { eventually, runCli, scanWorkflowHistories, spawnWorkerProcess, tearDownPrivateStack, threeMarketStudy, withTemporalClient, writeStudy } from './harness';
import { syntheticRsids } from '../helpers/respondent-ids';

// This file runs its own Temporal dev server (the suite's shared one must not be restarted). The
// server is stopped in the middle of an apply while ID-list upload jobs are Processing, stays down
// for a while, and is started again on the same port with the same SQLite file. The worker process
// started before the restart is NOT replaced: it keeps retrying its polls and reconnects by itself.

const RSIDS = syntheticRsids('restart-temporal', 150);
const KEYS = ['us', 'uk', 'de'];
const STUDY_ID = 'temporal-restart';
const DOWN_FOR_MS = 8000;

const STUDY = threeMarketStudy({ studyId: STUDY_ID, title: 'Temporal restart', reference: 'PO-TEMPORAL-RESTART', urlPrefix: 'tr', waveMembers: ['us', 'de'] });

describe('the Temporal dev server restarted (SQLite kept) in the middle of an apply', () => {
  let dir: string;
  let temporal: RunningDevServer;
  let stack: EmbeddedStack;
  let env: Record<string, string>;
  let worker: ChildProcess;
  let workerStderr = '';
  const taskQueue = `test-restart-temporal-${Math.random().toString(36).slice(2, 8)}`;

  const withClient = <T>(use: (client: Client) => Promise<T>) => withTemporalClient(temporal.address, use);
  const status = () => withClient((c) => c.workflow.getHandle(studyWorkflowId('1001', STUDY_ID)).query(statusQuery));

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-restart-temporal-'));
    temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal', 'temporal.sqlite'), stopWithParent: true, uiPort: false });
    stack = await startEmbeddedStack({ stateDir: dir, temporalAddress: temporal.address, inProcessWorker: false, taskQueue, sandboxPort: 0 });
    env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '30000', NO_COLOR: '1' };
    fs.writeFileSync(path.join(dir, 'past.txt'), `${RSIDS.join('\n')}\n`);
  });
  afterAll(async () => tearDownPrivateStack({ worker, temporal, taskQueue, stack, dir }));

  it('finishes the study with nothing lost or duplicated, and the same worker reconnects', async () => {
    const file = writeStudy(dir, 'study.yaml', STUDY);
    stack.sandbox.setFaults({ job_duration_ms: 5000 });
    worker = spawnWorkerProcess(dir, env, { onStderr: (text) => (workerStderr += text) });
    const applied = await runCli(env, ['apply', file, '--no-wait']);
    expect(applied.code, applied.stderr).toBe(0);
    await eventually(async () => (Object.values(stack.sandbox.state().jobs).some((j) => j.kind === 'exclusion_upload' && j.status === 'Processing') ? true : undefined), 120_000, 100);
    const before = await status();
    const runBefore = await withClient(async (c) => (await c.workflow.getHandle(studyWorkflowId('1001', STUDY_ID)).describe()).runId);

    // SQLITE_PRAGMAS reach the server: its SQLite file runs in write-ahead-log mode (the -wal file beside
    // it), and the restart below shows nothing committed is lost when the server stops.
    expect(fs.existsSync(path.join(dir, 'temporal', 'temporal.sqlite-wal'))).toBe(true);

    // Stop while upload jobs are Processing; the API goes on without Temporal.
    const processing = Object.values(stack.sandbox.state().jobs).filter((j) => j.status === 'Processing');
    expect(processing.length).toBeGreaterThan(0);
    await temporal.stop();
    await new Promise((r) => setTimeout(r, DOWN_FOR_MS));
    const requestsWhileDown = stack.sandbox.requests().length;
    temporal = await startTemporalDevServer({ dbFile: temporal.dbFile, port: temporal.port, stopWithParent: true, uiPort: false });

    const after: StudyStatus = await eventually(
      async () => {
        const s = await status();
        return s.phase === 'converged' && s.appliedRevision === s.revision ? s : undefined;
      },
      240_000,
      1000,
    );
    expect(after.revision).toBe(before.revision);
    expect(Object.values(after.targetGroups).map((x) => x.phase)).toEqual(KEYS.map(() => 'live'));
    // The same run went on: its history survived in SQLite.
    const runAfter = await withClient(async (c) => (await c.workflow.getHandle(studyWorkflowId('1001', STUDY_ID)).describe()).runId);
    expect(runAfter).toBe(runBefore);
    // The worker started before the restart did the rest: it is still running and polled again.
    expect(worker.exitCode).toBeNull();
    expect(stack.sandbox.requests().length).toBeGreaterThan(requestsWhileDown);

    const state: SandboxStateData = stack.sandbox.state();
    const projects = Object.values(state.projects);
    expect(projects.map((p) => p.project_customer_reference_number)).toEqual(['PO-TEMPORAL-RESTART']);
    const tgs = Object.values(state.target_groups);
    expect(tgs.map((x) => x.target_group_customer_reference_number).sort()).toEqual(KEYS.map((k) => `${STUDY_ID}_${k}`).sort());
    expect(tgs.every((x) => x.status === 'live')).toBe(true);
    const byKey = (key: string) => tgs.find((x) => x.target_group_customer_reference_number === `${STUDY_ID}_${key}`)!;
    expect(Object.values(state.fielding_runs).map((r) => r.target_group_id).sort()).toEqual(tgs.map((x) => x.id).sort());
    const groups = Object.values(state.exclusion_groups);
    expect(groups.map((g) => g.tag)).toEqual(['Temporal restart waves']);
    expect([...groups[0].target_group_ids].sort()).toEqual([byKey('us').id, byKey('de').id].sort());
    for (const key of ['us', 'uk']) expect([...state.id_exclusion_lists[byKey(key).id].rsid].sort()).toEqual([...RSIDS].sort());
    const uploads = Object.values(state.jobs).filter((j) => j.kind === 'exclusion_upload');
    expect(uploads).toHaveLength(2);
    expect(Object.values(state.jobs).filter((j) => j.kind === 'launch_from_draft')).toHaveLength(KEYS.length);
  });

  it('keeps the client secret, tokens and respondent IDs out of the histories and the worker log', async () => {
    const forbidden = [env.STUDYFLOW_CLIENT_SECRET, ...RSIDS.slice(0, 10)];
    const scanned = await withClient((client) => scanWorkflowHistories(client, taskQueue, forbidden, 'restart-temporal'));
    expect(scanned.workflows).toBeGreaterThanOrEqual(4);
    for (const needle of forbidden) expect(workerStderr).not.toContain(needle);
    expect(workerStderr).not.toMatch(/Bearer\s+\S{16,}|eyJ[A-Za-z0-9_-]{8,}\./);
  });
});
