import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';
import { eventually, runCli, spawnWorkerProcess, tearDownPrivateStack, withTemporalClient, writeStudy, type CliResult } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

// `studyflow apply` waiting while the Temporal server is down. This file runs its own Temporal dev server
// (the suite's shared one must not be stopped). The first apply waits through an outage of 30 s, longer than
// the Temporal client retries one call (about 20 s), and must go on waiting and end as the study does; the
// second is still waiting when its --timeout ends with the server down, and must say that Temporal is
// unreachable and why, not only that a call failed.

const DOWN_FOR_MS = 30_000;

function study(id: string): string {
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Outage ${id}
  project_customer_reference_number: PO-${id}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${id}?rid=[%RID%]
${quickLaunchFields('    ', 50)}
`;
}

describe('studyflow apply while the Temporal server is down', () => {
  let dir: string;
  let temporal: RunningDevServer;
  let stack: EmbeddedStack;
  let env: Record<string, string>;
  let worker: ChildProcess;
  const taskQueue = `test-apply-outage-${Math.random().toString(36).slice(2, 8)}`;

  const withClient = <T>(use: (client: Client) => Promise<T>) => withTemporalClient(temporal.address, use);
  /** Resolves once the study's target group is launching (its launch job Processing): apply is waiting then. */
  async function launching(studyId: string): Promise<void> {
    await eventually(async () => {
      const s = await withClient((c) => c.workflow.getHandle(studyWorkflowId('1001', studyId)).query(statusQuery)).catch(() => undefined);
      return s?.targetGroups.us?.phase === 'launching' ? true : undefined;
    }, 120_000, 100);
  }
  const restart = async () => {
    temporal = await startTemporalDevServer({ dbFile: temporal.dbFile, port: temporal.port, stopWithParent: true, uiPort: false });
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-apply-outage-'));
    temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal', 'temporal.sqlite'), stopWithParent: true, uiPort: false });
    stack = await startEmbeddedStack({ stateDir: dir, temporalAddress: temporal.address, inProcessWorker: false, taskQueue, sandboxPort: 0 });
    env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '30000', NO_COLOR: '1' };
    // Launch jobs take 5 s: each apply is still waiting when the server goes down.
    stack.sandbox.setFaults({ job_duration_ms: 5000 });
    worker = spawnWorkerProcess(dir, env);
  });
  afterAll(async () => tearDownPrivateStack({ worker, temporal, taskQueue, stack, dir }));

  it('waits out an outage of 30 s within its --timeout and ends as the study does', async () => {
    const file = writeStudy(dir, 'through.yaml', study('outage-through'));
    const applying: Promise<CliResult> = runCli(env, ['apply', file, '--require-live', '--timeout', '300']);
    await launching('outage-through');
    await temporal.stop();
    await new Promise((r) => setTimeout(r, DOWN_FOR_MS));
    await restart();
    const applied = await applying;

    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/us\s+live/);
    // It said that it waited, and why, and that Temporal came back; no failed call ended it.
    expect(applied.stderr).toContain(`Temporal unreachable at ${temporal.address} (`);
    expect(applied.stderr).toMatch(/UNAVAILABLE|ECONNREFUSED|No connection established/);
    expect(applied.stderr).toMatch(new RegExp(`Temporal at ${temporal.address.replace(/\./g, '\\.')} answers again \\(unreachable for \\d+ s\\)`));
    expect(applied.stderr).not.toMatch(/^error:/m);
  });

  it('names the outage when its --timeout ends with the server still down', async () => {
    const file = writeStudy(dir, 'timeout.yaml', study('outage-timeout'));
    const applying: Promise<CliResult> = runCli(env, ['apply', file, '--require-live', '--timeout', '15']);
    await launching('outage-timeout');
    await temporal.stop();
    const applied = await applying;
    await restart();

    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('timed out following (still applying)');
    expect(applied.stderr).toContain('the study goes on; follow it with: studyflow status');
    // The last line names the cause: which server, and what the client saw.
    const last = applied.stderr.trim().split('\n').pop()!;
    expect(last).toMatch(new RegExp(`^error: Temporal unreachable at ${temporal.address.replace(/\./g, '\\.')}( for the last \\d+ s)?: .*(UNAVAILABLE|DEADLINE_EXCEEDED|ECONNREFUSED)`));
    expect(applied.stderr).not.toMatch(/^error: Workflow Update failed$/m);
  });
});
