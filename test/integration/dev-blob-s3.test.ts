// `studyflow dev --blob s3` in miniature: the embedded stack with its local S3 server (versitygw) instead
// of the blob directory. A study with an ID list and a webhook applies; the list and the sealed secret
// land in the S3 server's data, and the CLI's shell finds what it needs in s3.env.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, writeStudy, type TestStack } from './harness';
import { CONNECTION_PROFILES } from '../../api/http/api-config';
import { testProfile } from '../helpers/test-profile';
import { syntheticRsids } from '../helpers/respondent-ids';
import { quickLaunchFields } from '../helpers/study-yaml';

const RSIDS = syntheticRsids('dev-s3', 25);

describe('studyflow dev --blob s3 (embedded stack with a local S3 server)', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack('devs3', { blob: 's3', encryptPayloads: true });
  });
  afterAll(async () => t?.stop());

  it('keeps ID lists and sealed webhook secrets in the S3 server, and writes s3.env for the CLI', async () => {
    expect(t.stack.s3?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(t.env.STUDYFLOW_BLOB_URL).toBe('s3://studyflow/blobs');
    expect(t.env.STUDYFLOW_BLOB_DIR).toBeUndefined();
    const envFile = path.join(t.dir, 's3.env');
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(envFile, 'utf8')).toContain(`AWS_ENDPOINT_URL=${t.stack.s3!.endpoint}\n`);

    fs.writeFileSync(path.join(t.dir, 'past.txt'), `${RSIDS.join('\n')}\n`);
    const file = writeStudy(t.dir, 'study.yaml', `format: studyflow/v1
study: dev-blob-s3
account: "1001"
business_unit: "2001"
project:
  name: Dev with S3
  project_customer_reference_number: PO-DEV-S3
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/dev-s3?rid=[%RID%]
${quickLaunchFields('    ', 50)}
    exclusions:
      respondent_ids: { file: past.txt }
webhooks:
  - url: ${t.stack.webhooks!.url}
    events: [${CONNECTION_PROFILES[testProfile()].sessionEvent}]
`);
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);

    const data = path.join(t.dir, 's3', 'studyflow', 'blobs');
    const lists = fs.readdirSync(path.join(data, 'sha256'));
    expect(lists).toHaveLength(1);
    expect(fs.readFileSync(path.join(data, 'sha256', lists[0]), 'utf8')).toBe(`${[...RSIDS].sort().join('\n')}\n`);
    expect(fs.existsSync(path.join(t.dir, 'blobs'))).toBe(false);
    const sealed = fs.readdirSync(path.join(data, 'webhook-secrets'), { recursive: true }).map(String).filter((f) => f.endsWith('.sealed'));
    expect(sealed).toHaveLength(1);
    const secret = Object.values((t.stack.sandbox.state().slices.webhooks as { webhooks: Record<string, { secret: string }> }).webhooks)[0].secret;
    expect(fs.readFileSync(path.join(data, 'webhook-secrets', sealed[0]), 'utf8')).not.toContain(secret);
    expect(t.stack.webhooks!.receiver.stats().rejected.secrets_unavailable).toBe(0);
  });
});
