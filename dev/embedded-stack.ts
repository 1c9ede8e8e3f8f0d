import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateCodecKey, loadCodecKeys, writeCodecKeyFile } from '../temporal/codec-keys';
import { startCodecServer, type RunningCodecServer } from '../temporal/codec-server';
import { findFreePort } from './free-port';
import type { NativeConnection } from '@temporalio/worker';
import { startSandbox, type RunningSandbox } from '../sandbox';
import { devSandboxEnv, writeDevApiProfile } from '../api/http/api-environment';
import { CONNECTION_PROFILES, type ConnectionProfileName } from '../api/http/api-config';
import { createWorkerActivities } from '../worker/worker-activities';
import { apiRateLimitFromEnv, startStudyflowWorkers, workflowCacheFromEnv, type RunningWorkers } from '../worker/studyflow-worker';
import { prepareWorkerTelemetry, startWorkerOps } from '../worker/worker-ops';
import { phaseIntervalFromEnv, TargetGroupPhaseCollector } from '../worker/target-group-phases';
import { registerReceiverMetrics } from '../webhooks/receiver-ops';
import { connectClient, dataConverterFromEnv, workflowTaskQueue } from '../temporal/temporal-connection';
import { connectWorker } from '../worker/worker-connection';
import { startWebhookIngress, type WebhookIngress } from '../webhooks/webhook-ingress';
import { startTemporalDevServer, type RunningDevServer } from './temporal-dev-server';
import { startS3DevServer, type RunningS3DevServer } from './s3-dev-server';

/** The local S3 server's credential, made once under stateDir (owner-only) so a restart keeps it. */
function devS3Credentials(stateDir: string): { accessKeyId: string; secretAccessKey: string } {
  const file = path.join(stateDir, 's3-credentials.json');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(stateDir, { recursive: true });
    const made = { accessKeyId: `studyflow-${randomBytes(4).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
    fs.writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { accessKeyId: string; secretAccessKey: string };
}

/** The webhook receiver's port of `studyflow dev` unless told otherwise (a free one when it is taken). */
export const DEV_WEBHOOK_PORT = 4020;

/**
 * Notes the running stack's connection profile in its state directory (`<stateDir>/api-profile`), where a worker or
 * a CLI in that directory finds it (api/http/api-environment.ts withDevDefaults); returns the remover, for when the
 * stack stops. `studyflow dev` calls it once the stack runs.
 */
export function noteDevApiProfile(stateDir: string, profile: ConnectionProfileName): () => void {
  return writeDevApiProfile(stateDir, profile);
}

/**
 * The settings of the stack itself: the given environment's values of these never reach its worker, whose API,
 * blob store, webhook secrets and payload key are the stack's (a shell's STUDYFLOW_API_BASE_URL for the real API
 * must not turn the dev worker against it).
 */
const STACK_SETTINGS = [
  'STUDYFLOW_API_BASE_URL',
  'STUDYFLOW_AUTH_URL',
  'STUDYFLOW_AUDIENCE',
  'STUDYFLOW_CLIENT_ID',
  'STUDYFLOW_CLIENT_SECRET',
  'STUDYFLOW_API_PROFILE',
  'STUDYFLOW_API_VERSION_HEADER',
  'STUDYFLOW_BLOB_URL',
  'STUDYFLOW_BLOB_DIR',
  'STUDYFLOW_WEBHOOK_SECRETS_FILE',
  'STUDYFLOW_CODEC_KEYS',
  'STUDYFLOW_CODEC_KEY_FILE',
];

/**
 * The environment the stack's in-process worker reads its settings from, as a `studyflow worker` reads its own:
 * `given` (notification URLs such as SLACK_WEBHOOK_URL, STUDYFLOW_API_REQUESTS_PER_SECOND,
 * STUDYFLOW_API_MAX_CONNECTIONS, STUDYFLOW_API_RATE_LIMIT, STUDYFLOW_WORKFLOW_CACHE, ...) with the stack's own
 * connection settings (`stackEnv`) in place of any the given one has.
 */
export function embeddedWorkerEnv(given: Record<string, string | undefined>, stackEnv: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...given };
  for (const name of STACK_SETTINGS) delete env[name];
  return { ...env, ...stackEnv };
}

/** The embedded default on one machine: Temporal dev server (SQLite), the sandbox API, and a worker. */
export interface EmbeddedStackOptions {
  /** Where Temporal's SQLite file, the sandbox state, blobs and secrets live. */
  stateDir: string;
  /** Use this Temporal server instead of starting one (tests). */
  temporalAddress?: string;
  temporalPort?: number;
  /** false: headless. */
  uiPort?: number | false;
  sandboxPort?: number;
  /** Stop the dev server if this process dies (tests, demo). */
  stopWithParent?: boolean;
  /** Worker options. */
  apiRatePerSecond?: number;
  /** Workflow task queue (tests give each file its own). */
  taskQueue?: string;
  /** Port of the webhook receiver (0 = free); it runs with the in-process worker. */
  webhookPort?: number;
  /** When `webhookPort` is taken, take a free one instead (the default port of `studyflow dev`); else a taken port is an error naming it. */
  webhookPortFallback?: boolean;
  /** Serve the in-process worker's /metrics and /healthz on this port (0 = free); absent: none. */
  metricsPort?: number;
  /**
   * The environment the in-process worker takes its settings from, as a `studyflow worker` takes them from its own
   * (default process.env): notification targets, pacing, connection limits, the workflow cache. The stack's own
   * connection settings replace any in it (`embeddedWorkerEnv`).
   */
  env?: Record<string, string | undefined>;
  /** Where the codec keys come from (default `env`, else process.env). */
  codecEnv?: Record<string, string | undefined>;
  /**
   * Encrypt payloads with a local key (made once under stateDir) and run a codec server that the
   * Temporal UI uses to show decrypted payloads on this machine (`studyflow dev`, the demo).
   */
  encryptPayloads?: boolean;
  /**
   * The connection profile of the whole stack (default `sandbox`): the sandbox speaks its dialect (`sandbox`: the
   * spec's; `cint`: the published reference's) and the worker, the webhook receiver and the CLI settings in `env`
   * use it (STUDYFLOW_API_PROFILE).
   */
  apiProfile?: ConnectionProfileName;
  /** Let the sandbox's fielding simulation run on its own (live target groups collect sessions). */
  simulateFielding?: boolean;
  /** Run a worker in this process (default true); false when workers run as their own processes. */
  inProcessWorker?: boolean;
  /**
   * Where ID lists and sealed webhook secrets live: `local` (default) a directory under stateDir; `s3` a
   * local S3 server (versitygw over stateDir/s3, built on first use), as a deployment's object storage.
   */
  blob?: 'local' | 's3';
}

export interface EmbeddedStack {
  temporalAddress: string;
  uiUrl?: string;
  sandbox: RunningSandbox;
  /** The codec server when payloads are encrypted: `uiEndpoint` is what the UI uses, `url` + bearer token for the CLI. */
  codec?: { url: string; uiEndpoint: string; tokenFile: string; keyFile: string };
  /** The webhook receiver (with the in-process worker): declare `${webhookUrl}` in study files. */
  webhooks?: WebhookIngress;
  /** The local S3 server with `blob: 's3'`. */
  s3?: RunningS3DevServer;
  /** The in-process worker's /metrics and /healthz (with `metricsPort`). */
  metrics?: { url: string };
  /** The in-process worker: what it runs with, read from its environment. */
  worker?: {
    env: Record<string, string | undefined>;
    apiRatePerSecond: number;
    apiClient: { requestsPerSecond?: number; maxConnections?: number };
    maxCachedWorkflows?: number;
  };
  /** The webhook port asked for was taken and the receiver took a free one (`webhookPortFallback`). */
  webhookPortTaken?: number;
  /** The STUDYFLOW_* and TEMPORAL_* settings a CLI or another worker uses to reach this stack. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startEmbeddedStack(options: EmbeddedStackOptions): Promise<EmbeddedStack> {
  const given = options.env ?? process.env;
  // Refused before anything starts (WorkflowCacheSizeError, ApiRateLimitError name the value).
  const inProcessWorker = options.inProcessWorker !== false;
  const maxCachedWorkflows = inProcessWorker ? workflowCacheFromEnv(given) : undefined;
  const apiRatePerSecond = inProcessWorker ? (options.apiRatePerSecond ?? apiRateLimitFromEnv(given)) : undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    // Fix the ports first: the codec server's CORS origins name the UI's port.
    const temporalPort = options.temporalAddress ? undefined : options.temporalPort || (await findFreePort());
    const uiPort = options.uiPort === false ? false : (options.uiPort ?? (temporalPort ?? 7233) + 1000);
    let codecEnv = options.codecEnv ?? given;
    let codec: EmbeddedStack['codec'];
    if (options.encryptPayloads) {
      const keyFile = path.join(options.stateDir, 'codec-key.json');
      if (!fs.existsSync(keyFile)) writeCodecKeyFile(keyFile, generateCodecKey());
      codecEnv = { ...codecEnv, STUDYFLOW_CODEC_KEYS: undefined, STUDYFLOW_CODEC_KEY_FILE: keyFile };
      const keys = loadCodecKeys(codecEnv as NodeJS.ProcessEnv);
      if (!keys) throw new Error('the local codec key could not be loaded');
      const tokenFile = path.join(options.stateDir, 'codec-token');
      const authToken = randomBytes(24).toString('hex');
      fs.writeFileSync(tokenFile, `${authToken}\n`, { mode: 0o600 });
      const pathSecret = randomBytes(16).toString('hex');
      const server: RunningCodecServer = await startCodecServer({
        keys,
        authToken,
        pathSecret,
        allowedOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
      });
      cleanups.push(() => server.close());
      codec = { url: server.url, uiEndpoint: `${server.url}/${pathSecret}`, tokenFile, keyFile };
    }
    let temporal: RunningDevServer | undefined;
    let temporalAddress = options.temporalAddress;
    if (!temporalAddress) {
      temporal = await startTemporalDevServer({
        dbFile: path.join(options.stateDir, 'temporal.sqlite'),
        port: temporalPort,
        uiPort,
        uiCodecEndpoint: codec?.uiEndpoint,
        stopWithParent: options.stopWithParent,
      });
      cleanups.push(() => temporal!.stop());
      temporalAddress = temporal.address;
    }
    const apiProfile = options.apiProfile ?? 'sandbox';
    if (!Object.hasOwn(CONNECTION_PROFILES, apiProfile)) throw new Error(`unknown connection profile ${JSON.stringify(apiProfile)} (expected ${Object.keys(CONNECTION_PROFILES).join(' or ')})`);
    const sandbox = await startSandbox({
      port: options.sandboxPort ?? 0,
      stateFile: path.join(options.stateDir, 'sandbox-state.json'),
      dialect: apiProfile === 'cint' ? 'cint' : 'spec',
      quiet: true,
    });
    cleanups.push(() => sandbox.close());
    if (options.simulateFielding) {
      const res = await fetch(`${sandbox.baseUrl}/_sandbox/fielding/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ auto_advance: true }),
      });
      if (!res.ok) throw new Error(`the sandbox refused to start its fielding simulation (${res.status})`);
    }
    const env: Record<string, string> = {
      ...devSandboxEnv(sandbox.baseUrl, sandbox.authUrl),
      STUDYFLOW_API_PROFILE: apiProfile,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      STUDYFLOW_BLOB_DIR: path.join(options.stateDir, 'blobs'),
      STUDYFLOW_WEBHOOK_SECRETS_FILE: path.join(options.stateDir, 'secrets', 'webhooks.json'),
    };
    let s3: RunningS3DevServer | undefined;
    if (options.blob === 's3') {
      s3 = await startS3DevServer({ rootDir: path.join(options.stateDir, 's3'), buckets: ['studyflow'], stopWithParent: options.stopWithParent, ...devS3Credentials(options.stateDir) });
      cleanups.push(() => s3!.stop());
      delete env.STUDYFLOW_BLOB_DIR;
      Object.assign(env, s3.env, { STUDYFLOW_BLOB_URL: 's3://studyflow/blobs' });
      // What a CLI in another shell sources to store its ID lists there (owner-only: it holds the local credential).
      const envFile = path.join(options.stateDir, 's3.env');
      const lines = ['STUDYFLOW_BLOB_URL', 'AWS_ENDPOINT_URL', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'].map((name) => `${name}=${env[name]}`);
      fs.writeFileSync(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
    }
    if (temporal?.uiUrl) env.STUDYFLOW_TEMPORAL_UI_URL = temporal.uiUrl;
    if (options.taskQueue) env.STUDYFLOW_TASK_QUEUE = options.taskQueue;
    if (codec) env.STUDYFLOW_CODEC_KEY_FILE = codec.keyFile;
    if (!inProcessWorker) {
      return { temporalAddress, uiUrl: temporal?.uiUrl, sandbox, codec, s3, env, stop };
    }
    // The worker's settings come from the environment it was given, as a `studyflow worker`'s do.
    const workerEnv = embeddedWorkerEnv(given, env);
    // Before the Temporal connection: the SDK's exporter is part of the runtime the connection starts.
    const telemetry = await prepareWorkerTelemetry(workerEnv, options.metricsPort !== undefined);
    const phasesEveryMs = options.metricsPort === undefined ? undefined : phaseIntervalFromEnv(workerEnv);
    const activities = createWorkerActivities(workerEnv, { metrics: telemetry.metrics });
    const connection: NativeConnection = await connectWorker({ address: temporalAddress, namespace: 'default', connectionOptions: {} });
    cleanups.push(() => connection.close());
    const taskQueue = options.taskQueue ?? workflowTaskQueue(workerEnv);
    const workers: RunningWorkers = await startStudyflowWorkers({
      connection,
      namespace: 'default',
      activities: activities.activities,
      apiRatePerSecond,
      taskQueue,
      dataConverter: dataConverterFromEnv(codecEnv),
      maxCachedWorkflows,
      // The dev stack's worker is the one worker of its task queue: its build becomes current at every start.
      deployment: { env: workerEnv, currentPolicy: 'always' },
    });
    cleanups.push(() => workers.shutdown());
    let workersRunning = true;
    void workers.done.then(
      () => (workersRunning = false),
      () => (workersRunning = false),
    );
    const { client, connection: clientConnection } = await connectClient(
      { address: temporalAddress, namespace: 'default', connectionOptions: {} },
      codecEnv,
    );
    cleanups.push(() => clientConnection.close());
    const ingressOn = (port: number) => startWebhookIngress({ client, secrets: activities.receiverSecrets, port, signatureHeader: CONNECTION_PROFILES[apiProfile].signatureHeader });
    const webhookPort = options.webhookPort ?? 0;
    let webhookPortTaken: number | undefined;
    let webhooks: WebhookIngress;
    try {
      webhooks = await ingressOn(webhookPort);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if (!options.webhookPortFallback) throw new Error(`the webhook receiver's port ${webhookPort} is already in use`);
      webhookPortTaken = webhookPort;
      webhooks = await ingressOn(0);
    }
    cleanups.push(() => webhooks.close());
    env.STUDYFLOW_WEBHOOK_URL = webhooks.url;
    let metrics: EmbeddedStack['metrics'];
    if (options.metricsPort !== undefined) {
      registerReceiverMetrics(telemetry.metrics.registry, webhooks);
      // studyflow_target_groups{phase} of this stack's task queue, counted in Temporal's visibility.
      const phases = new TargetGroupPhaseCollector({
        workflowService: connection.workflowService,
        namespace: 'default',
        taskQueue,
        metrics: telemetry.metrics,
        intervalMs: phasesEveryMs,
        log: () => undefined,
      });
      phases.start();
      cleanups.push(() => Promise.resolve(phases.stop()));
      const ops = await startWorkerOps({
        metrics: telemetry.metrics,
        port: options.metricsPort,
        connection,
        workersRunning: () => workersRunning,
        sdkMetricsAddress: telemetry.sdkMetricsAddress,
        beforeScrape: () => phases.refreshIfStale(),
      });
      cleanups.push(() => ops.close());
      metrics = { url: ops.url };
    }
    const worker = { env: workerEnv, apiRatePerSecond: apiRatePerSecond!, apiClient: activities.apiSettings, maxCachedWorkflows };
    return { temporalAddress, uiUrl: temporal?.uiUrl, sandbox, codec, s3, webhooks, metrics, worker, webhookPortTaken, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
