import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { historyPayloads, runCli, startTestStack, writeStudy, type TestStack } from './harness';

const STUDY = `format: studyflow/v1
study: encrypted-demo
account: "1001"
business_unit: "2001"
project:
  name: Encrypted payloads
  project_customer_reference_number: PO-ENCRYPTED-SECRET-NAME
target_groups:
  nl:
    locale: nl_NL
    live_url: https://survey.example.com/s/encrypted?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 9
    filling_goal: 40
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch: { mode: auto }
    timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
`;

describe('the dev stack with a local payload key', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack('encrypted', { encryptPayloads: true });
  });
  afterAll(async () => t?.stop());

  it('applies a study whose every workflow payload is encrypted, and the UI codec endpoint decodes them', async () => {
    const file = writeStudy(t.dir, 'study.yaml', STUDY);
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/nl\s+live/);

    const history = await t.client.workflow.getHandle('study/1001/encrypted-demo').fetchHistory();
    const json = historyToJSON(history);
    expect(json).not.toContain(Buffer.from('PO-ENCRYPTED-SECRET-NAME').toString('base64').slice(0, 20));
    // Every payload that names its encoding.
    const payloads = historyPayloads(json).filter((p) => 'encoding' in p.metadata);
    const encodings = payloads.map((p) => Buffer.from(p.metadata.encoding, 'base64').toString());
    expect(encodings.length).toBeGreaterThan(3);
    // Search attributes are not payload-encoded by the codec; every other payload is (the workflows
    // record no patch markers: studyflow is unreleased and has none).
    const text = (p: { data: string }) => Buffer.from(p.data, 'base64').toString();
    const clear = payloads.filter((p, i) => encodings[i] !== 'binary/encrypted' && !text(p).startsWith('"'));
    expect(clear).toEqual([]);
    expect(json).not.toContain('MARKER_RECORDED');
    for (const p of payloads) expect(Buffer.from(p.data, 'base64').toString()).not.toContain('PO-ENCRYPTED-SECRET-NAME');

    const encrypted = payloads.find((_, i) => encodings[i] === 'binary/encrypted')!;
    const reply = await fetch(`${t.stack.codec!.uiEndpoint}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [encrypted] }),
    });
    expect(reply.status).toBe(200);
    const decoded = (await reply.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(decoded.payloads[0].data, 'base64').toString()).toContain('"');
    const anonymous = await fetch(`${t.stack.codec!.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payloads: [encrypted] }) });
    expect(anonymous.status).toBe(401);
  });

  it('tells a CLI without the payload key that the payloads are encrypted and which variables hold the key', async () => {
    const file = writeStudy(t.dir, 'study.yaml', STUDY);
    // As when `studyflow dev` runs on other ports: the shell sets STUDYFLOW_API_BASE_URL, so the dev key is not looked for.
    const { STUDYFLOW_CODEC_KEY_FILE: keyFile, ...keyless } = t.env;
    expect(keyFile).toBeTruthy();
    expect(keyless.STUDYFLOW_API_BASE_URL).toBeTruthy();
    for (const args of [['status', file], ['report', file], ['plan', file]]) {
      const result = await runCli({ ...keyless, STUDYFLOW_CODEC_KEYS: '', STUDYFLOW_CODEC_KEY_FILE: '' }, args);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
      expect(result.stderr, args[0]).toMatch(/^error: the workflow's payloads are encrypted with key "[A-Za-z0-9._-]+", and no payload key is set: set STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE to the keys the workers use/m);
      expect(result.stderr + result.stdout, args[0]).not.toMatch(/Unknown encoding|\n\s+at /);
    }
    // With the key the same command reads the workflow.
    expect((await t.cli(['status', file])).code).toBe(0);
  });

  it('keeps the client secret and tokens out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET]);
    expect(scanned.workflows).toBeGreaterThanOrEqual(2);
  });
});
