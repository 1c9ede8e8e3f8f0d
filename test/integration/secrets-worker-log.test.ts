import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticRsids } from '../helpers/respondent-ids';
import { eventually, startTestStack, writeStudy, type TestStack } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

// A worker process logging at DEBUG (the most it ever says) runs an apply through injected 503s,
// 429s, lost responses and tokens that expire every second, and an ID list whose upload the API fails.
// Its stderr must hold no client secret, no bearer token and no respondent ID.

const RSIDS = syntheticRsids('secrets-leak', 80);
/** In the list whose upload job the API fails (RSIDs are UUIDs; the CLI refuses anything else before any call). */
const REFUSED_RSID = syntheticRsids('secrets-refused', 1)[0];

const study = (id: string, list: string) => `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Secrets ${id}
  project_customer_reference_number: PO-${id.toUpperCase()}
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${id}-us?rid=[%RID%]
    filling_goal: 50
    exclusions:
      respondent_ids: { file: ${list} }
  uk:
    locale: en_GB
    live_url: https://survey.example.com/s/${id}-uk?rid=[%RID%]
    filling_goal: 40
`;

describe('worker logs under faults', () => {
  let t: TestStack;
  let log = '';
  beforeAll(async () => {
    t = await startTestStack('secrets-log', { inProcessWorker: false });
    fs.writeFileSync(path.join(t.dir, 'good.txt'), `${RSIDS.join('\n')}\n`);
    fs.writeFileSync(path.join(t.dir, 'refused.txt'), `${RSIDS.slice(0, 10).join('\n')}\n${REFUSED_RSID}\n`);
  });
  afterAll(async () => t?.stop());

  it('carry no client secret, bearer token or respondent ID, at DEBUG level', async () => {
    const faults = { error_rate: 0.15, rate_limit_rate: 0.1, drop_after_commit_rate: 0.05, token_ttl_seconds: 1, seed: 7 };
    t.stack.sandbox.setFaults(faults);
    t.spawnWorker({ env: { STUDYFLOW_LOG_LEVEL: 'DEBUG' }, onStderr: (text) => (log += text) });
    const good = writeStudy(t.dir, 'good.yaml', study('leak-good', 'good.txt'));
    const refused = writeStudy(t.dir, 'refused.yaml', study('leak-refused', 'refused.txt'));
    const applied = await t.cli(['apply', good, '--timeout', '240']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const goodStatus = await t.status('1001', 'leak-good');
    expect(goodStatus.phase).toBe('converged');
    // Now the API fails every job: the refused list's upload fails its target group.
    t.stack.sandbox.setFaults({ ...faults, job_failure_rate: 1 });
    const failed = await t.cli(['apply', refused, '--timeout', '240']);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    const refusedStatus = await eventually(async () => {
      const s = await t.status('1001', 'leak-refused');
      return s.targetGroups.us?.phase === 'failed' ? s : undefined;
    });
    expect(refusedStatus.targetGroups.us.message ?? refusedStatus.targetGroups.us.failure?.message).toMatch(/upload job \S+ failed/);

    // The scan is not vacuous: the worker logged the faults it met.
    expect(log).toMatch(/WARN\s+Activity failed/);
    expect(t.stack.sandbox.requests().filter((r) => r.path === '/auth/oauth/token').length).toBeGreaterThan(1);

    for (const needle of [t.env.STUDYFLOW_CLIENT_SECRET, ...RSIDS, REFUSED_RSID]) {
      expect(log.includes(needle), `worker log contains ${needle.slice(0, 6)}…`).toBe(false);
    }
    expect(log).not.toMatch(/Bearer\s+[A-Za-z0-9._-]{16,}/);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/);
    expect(log).not.toMatch(/client_secret/);
  });

  it('and the workflow histories carry none either', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET, ...RSIDS.slice(0, 20), REFUSED_RSID], 'secrets-worker-log');
    expect(scanned.workflows).toBeGreaterThanOrEqual(6);
  });
});
