// How a CLI finds the stack `studyflow dev` runs (client/dev-stack.ts): STUDYFLOW_DEV_STATE_DIR (a state directory
// or the file), else .studyflow/dev-stack.json in the working directory or a parent; the file's settings fill in
// what the environment leaves unset, a variable the user set wins with its group, another TEMPORAL_ADDRESS means
// another stack; a file whose `studyflow dev` no longer runs is an error naming it (the CLI exits 1 instead of
// planning against an empty remote). And the settings of the in-process worker come from the environment `dev`
// was given (dev/embedded-stack.ts embeddedWorkerEnv), read where a standalone worker reads them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DevStackError, locateDevStackFile, withDevStack, type DevStackInfo } from '../../client/dev-stack';
import { StudyClient } from '../../client';
import { doctorChecks } from '../../client/doctor';
import { writeDevStackFile } from '../../cli/dev-stack-file';
import { embeddedWorkerEnv } from '../../dev/embedded-stack';
import { createWorkerActivities } from '../../worker/worker-activities';
import { apiRateLimitFromEnv, workflowCacheFromEnv } from '../../worker/studyflow-worker';
import { runCli } from '../cli/run-cli';
import { MINIMAL_TARGET_GROUP_FIELDS } from '../helpers/study-yaml';

/** A process id that ran and has ended. */
const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

function stackInfo(stateDir: string, over: Partial<DevStackInfo> = {}): DevStackInfo {
  return {
    pid: process.pid,
    state_dir: stateDir,
    profile: 'sandbox',
    ports: { temporal: 17233, ui: 18233, sandbox: 14010, webhook: 14020, metrics: 19464 },
    temporal_address: '127.0.0.1:17233',
    ui_url: 'http://127.0.0.1:18233',
    api: { base_url: 'http://127.0.0.1:14010', auth_url: 'http://127.0.0.1:14010/auth', audience: 'aud', client_id: 'cid', client_secret: 'public-sandbox-secret' },
    webhook_url: 'http://127.0.0.1:14020',
    metrics_url: 'http://127.0.0.1:19464/metrics',
    codec_key_file: path.join(stateDir, 'codec-key.json'),
    blob: { dir: path.join(stateDir, 'blobs') },
    webhook_secrets_file: path.join(stateDir, 'secrets', 'webhooks.json'),
    ...over,
  };
}

describe('finding the dev stack', () => {
  let root: string;
  let stateDir: string;
  let project: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-stack-'));
    stateDir = path.join(root, 'elsewhere', 'state');
    project = path.join(root, 'project');
    fs.mkdirSync(path.join(project, 'studies', 'q3'), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('takes STUDYFLOW_DEV_STATE_DIR (the directory or the file), else .studyflow/ of the working directory or a parent', () => {
    const file = writeDevStackFile(stateDir, stackInfo(stateDir));
    expect(locateDevStackFile({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project)).toEqual({ file, named: true });
    expect(locateDevStackFile({ STUDYFLOW_DEV_STATE_DIR: file }, project)).toEqual({ file, named: true });
    expect(locateDevStackFile({ STUDYFLOW_DEV_STATE_DIR: path.relative(project, stateDir) }, project)).toEqual({ file, named: true });
    expect(locateDevStackFile({}, path.join(project, 'studies', 'q3'))).toBeUndefined();
    const local = writeDevStackFile(path.join(project, '.studyflow'), stackInfo(path.join(project, '.studyflow')));
    expect(locateDevStackFile({}, path.join(project, 'studies', 'q3'))).toEqual({ file: local, named: false });
    expect((fs.statSync(local).mode & 0o777).toString(8)).toBe('600');
  });

  it("fills in every setting of the stack the environment leaves unset: Temporal, the sandbox API, the profile, the key, the blob store", () => {
    writeDevStackFile(stateDir, stackInfo(stateDir));
    const env = withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir, HOME: '/home/x' }, project);
    expect(env).toEqual({
      STUDYFLOW_DEV_STATE_DIR: stateDir,
      HOME: '/home/x',
      TEMPORAL_ADDRESS: '127.0.0.1:17233',
      TEMPORAL_NAMESPACE: 'default',
      STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:14010',
      STUDYFLOW_AUTH_URL: 'http://127.0.0.1:14010/auth',
      STUDYFLOW_AUDIENCE: 'aud',
      STUDYFLOW_CLIENT_ID: 'cid',
      STUDYFLOW_CLIENT_SECRET: 'public-sandbox-secret',
      STUDYFLOW_API_PROFILE: 'sandbox',
      STUDYFLOW_CODEC_KEY_FILE: path.join(stateDir, 'codec-key.json'),
      STUDYFLOW_BLOB_DIR: path.join(stateDir, 'blobs'),
      STUDYFLOW_WEBHOOK_SECRETS_FILE: path.join(stateDir, 'secrets', 'webhooks.json'),
      STUDYFLOW_TEMPORAL_UI_URL: 'http://127.0.0.1:18233',
    });
  });

  it('lets a variable the user set win, with its group; another TEMPORAL_ADDRESS means another stack', () => {
    writeDevStackFile(stateDir, stackInfo(stateDir));
    const named = { STUDYFLOW_DEV_STATE_DIR: stateDir };
    const ownApi = withDevStack({ ...named, STUDYFLOW_API_BASE_URL: 'https://api.example.com', STUDYFLOW_CLIENT_ID: 'mine' }, project);
    expect(ownApi).toMatchObject({ STUDYFLOW_API_BASE_URL: 'https://api.example.com', STUDYFLOW_CLIENT_ID: 'mine', TEMPORAL_ADDRESS: '127.0.0.1:17233' });
    expect(ownApi.STUDYFLOW_AUTH_URL).toBeUndefined();
    expect(ownApi.STUDYFLOW_CLIENT_SECRET).toBeUndefined();
    expect(ownApi.STUDYFLOW_API_PROFILE).toBeUndefined();
    const ownStore = withDevStack({ ...named, STUDYFLOW_BLOB_URL: 's3://mine/x', STUDYFLOW_CODEC_KEYS: 'k1:abc', STUDYFLOW_TEMPORAL_UI_URL: 'https://ui' }, project);
    expect(ownStore).toMatchObject({ STUDYFLOW_BLOB_URL: 's3://mine/x', STUDYFLOW_CODEC_KEYS: 'k1:abc', STUDYFLOW_TEMPORAL_UI_URL: 'https://ui' });
    expect(ownStore.STUDYFLOW_BLOB_DIR).toBeUndefined();
    expect(ownStore.STUDYFLOW_CODEC_KEY_FILE).toBeUndefined();
    // The same server named as localhost is the stack; another server is not, and the file is left alone.
    expect(withDevStack({ ...named, TEMPORAL_ADDRESS: 'localhost:17233' }, project).STUDYFLOW_API_BASE_URL).toBe('http://127.0.0.1:14010');
    expect(withDevStack({ ...named, TEMPORAL_ADDRESS: 'temporal.example.com:7233' }, project)).toEqual({ ...named, TEMPORAL_ADDRESS: 'temporal.example.com:7233' });
  });

  it('reads the S3 settings of a stack with --blob s3 from the file it names', () => {
    fs.mkdirSync(stateDir, { recursive: true });
    const envFile = path.join(stateDir, 's3.env');
    fs.writeFileSync(envFile, 'STUDYFLOW_BLOB_URL=s3://studyflow/blobs\nAWS_ENDPOINT_URL=http://127.0.0.1:17070\nAWS_REGION=us-east-1\nAWS_ACCESS_KEY_ID=id\nAWS_SECRET_ACCESS_KEY=secret\n');
    writeDevStackFile(stateDir, stackInfo(stateDir, { blob: { url: 's3://studyflow/blobs', env_file: envFile } }));
    const env = withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project);
    expect(env).toMatchObject({ STUDYFLOW_BLOB_URL: 's3://studyflow/blobs', AWS_ENDPOINT_URL: 'http://127.0.0.1:17070', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(env.STUDYFLOW_BLOB_DIR).toBeUndefined();
  });

  it('refuses a stack that no longer runs, a named directory without one, an unreadable file, and another profile, each by name', () => {
    const pid = deadPid();
    const file = writeDevStackFile(stateDir, stackInfo(stateDir, { pid }));
    expect(() => withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project)).toThrow(DevStackError);
    expect(() => withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project)).toThrow(`the dev stack noted in ${file} no longer runs (its process ${pid} has ended)`);
    // Found from the working directory: the same.
    const local = writeDevStackFile(path.join(project, '.studyflow'), stackInfo(path.join(project, '.studyflow'), { pid }));
    expect(() => withDevStack({}, path.join(project, 'studies'))).toThrow(`the dev stack noted in ${local} no longer runs`);

    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    expect(() => withDevStack({ STUDYFLOW_DEV_STATE_DIR: empty }, project)).toThrow(`STUDYFLOW_DEV_STATE_DIR=${empty}: no dev stack runs there`);

    fs.writeFileSync(file, '{"temporal_address": 7233');
    expect(() => withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project)).toThrow(`${file}: not a dev-stack file`);

    writeDevStackFile(stateDir, stackInfo(stateDir, { profile: 'cint' }));
    expect(() => withDevStack({ STUDYFLOW_DEV_STATE_DIR: stateDir, STUDYFLOW_API_PROFILE: 'sandbox' }, project)).toThrow(/STUDYFLOW_API_PROFILE is sandbox, but the dev stack of .* speaks the cint profile/);
  });

  it('gives the study client the stack\'s settings, and refuses a stale one with a StudyClientError (doctor too)', async () => {
    writeDevStackFile(stateDir, stackInfo(stateDir));
    const client = new StudyClient({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project);
    expect(client.temporalServer).toEqual({ address: '127.0.0.1:17233', namespace: 'default' });
    expect(client.env.STUDYFLOW_API_BASE_URL).toBe('http://127.0.0.1:14010');
    writeDevStackFile(stateDir, stackInfo(stateDir, { pid: deadPid() }));
    expect(() => new StudyClient({ STUDYFLOW_DEV_STATE_DIR: stateDir }, project)).toThrow(expect.objectContaining({ name: 'StudyClientError', exitCode: 1 }));
    // doctor checks the connection the same way.
    await expect(doctorChecks({ STUDYFLOW_DEV_STATE_DIR: stateDir }, {}, project)).rejects.toThrow(/no longer runs/);
  });

  it('`studyflow plan` against a stale dev-stack file exits 1 naming it, instead of planning against an empty remote', async () => {
    const file = writeDevStackFile(stateDir, stackInfo(stateDir, { pid: deadPid() }));
    const study = path.join(project, 'study.yaml');
    fs.writeFileSync(
      study,
      `format: studyflow/v1\nstudy: stale-dev\naccount: "1001"\nbusiness_unit: "2001"\nproject:\n  name: Stale dev\ntarget_groups:\n  us:\n${MINIMAL_TARGET_GROUP_FIELDS}`,
    );
    const result = await runCli(['plan', study], { env: { STUDYFLOW_DEV_STATE_DIR: stateDir, NO_COLOR: '1', PATH: process.env.PATH ?? '' } });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(`the dev stack noted in ${file} no longer runs`);
    expect(result.stderr).toContain(`studyflow dev --state-dir ${stateDir}`);
    expect(result.stdout).not.toContain('empty remote');
  });
});

describe("the in-process worker's settings", () => {
  it('come from the environment `dev` was given (pacing, connections, rate limit, cache, notification URLs), with the stack\'s own connection', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-worker-env-'));
    try {
      const stackEnv = {
        STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:14010',
        STUDYFLOW_AUTH_URL: 'http://127.0.0.1:14010/auth',
        STUDYFLOW_AUDIENCE: 'aud',
        STUDYFLOW_CLIENT_ID: 'cid',
        STUDYFLOW_CLIENT_SECRET: 'sandbox-secret',
        STUDYFLOW_API_PROFILE: 'sandbox',
        TEMPORAL_ADDRESS: '127.0.0.1:17233',
        STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs'),
        STUDYFLOW_WEBHOOK_SECRETS_FILE: path.join(dir, 'secrets', 'webhooks.json'),
      };
      const given = {
        STUDYFLOW_API_REQUESTS_PER_SECOND: '3',
        STUDYFLOW_API_MAX_CONNECTIONS: '7',
        STUDYFLOW_API_RATE_LIMIT: '5',
        STUDYFLOW_WORKFLOW_CACHE: '300',
        SLACK_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
        // A shell's own API and blob store stay out of the stack's worker.
        STUDYFLOW_API_BASE_URL: 'https://api.example.com',
        STUDYFLOW_BLOB_URL: 's3://elsewhere/blobs',
      };
      const workerEnv = embeddedWorkerEnv(given, stackEnv);
      const activities = createWorkerActivities(workerEnv);
      expect(activities.apiSettings).toEqual({ requestsPerSecond: 3, maxConnections: 7 });
      expect(apiRateLimitFromEnv(workerEnv)).toBe(5);
      expect(workflowCacheFromEnv(workerEnv)).toBe(300);
      expect(workerEnv.SLACK_WEBHOOK_URL).toBe('http://127.0.0.1:9/hook');
      expect(workerEnv.STUDYFLOW_API_BASE_URL).toBe('http://127.0.0.1:14010');
      expect(workerEnv.STUDYFLOW_BLOB_URL).toBeUndefined();
      expect(activities.blobs.location).toContain(path.join(dir, 'blobs'));
      // Unset: the defaults; a bad rate limit is refused by name.
      expect(createWorkerActivities(embeddedWorkerEnv({}, stackEnv)).apiSettings).toEqual({});
      expect(apiRateLimitFromEnv({})).toBe(20);
      expect(() => apiRateLimitFromEnv({ STUDYFLOW_API_RATE_LIMIT: 'fast' })).toThrow('STUDYFLOW_API_RATE_LIMIT must be a positive number of API activities per second (it is "fast")');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
