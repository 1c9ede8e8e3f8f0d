// The deployment of docs/deploy.md as separate processes that share no directory, each with its own
// working directory and HOME: a "CI runner" that only runs the CLI, two worker hosts, two webhook
// receivers, an S3 server (versitygw), the sandbox API, and the suite's Temporal dev server. They share
// nothing but Temporal and the object storage (and the installed code, as hosts share an image).
// The examples with ID lists, exclusion groups and a webhook, plus a 100,000-ID list, are applied from
// the runner; one worker host is SIGKILLed mid-way; every webhook delivery goes to both receivers and
// some twice. Loopback only, bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { RunningSandbox } from '../../sandbox';
import { generateCodecKey, parseCodecKeyList } from '../../temporal/codec-keys';
import { findFreePort } from '../../dev/free-port';
import { AesGcmPayloadCodec, isEncryptedPayload } from '../../temporal/payload-codec';
import { startS3DevServer, type RunningS3DevServer } from '../../dev/s3-dev-server';
import { writeWorkflowBundle } from '../../worker/studyflow-worker';
import { connectClient } from '../../temporal/temporal-connection';
import { statusQuery, studyWorkflowId, type StudyStatus } from '../../workflows/messages';
import { SandboxTestClient } from '../sandbox/sandbox-test-client';
import { REPO_ROOT, eventually, historyPayloads } from './harness';
import { targetGroupReference } from '../../plan/desired';
import { syntheticRsids } from '../helpers/respondent-ids';

const ACCOUNT = '1001';
const BIN = path.join(REPO_ROOT, 'bin/studyflow.js');
const EXAMPLES = path.join(REPO_ROOT, 'examples');
const HUNDRED_K = 100_000;

/** One "machine": its own directory (cwd and HOME) and the output of the processes it ran. */
interface Host {
  name: string;
  dir: string;
  log: string[];
}

interface Delivery {
  eventId: string;
  targetGroupId?: string;
  headers: Record<string, string>;
  body: Buffer;
}

function say(line: string): void {
  process.stdout.write(`[multi-host] ${line}\n`);
}

describe('multi-host: CI runner, two worker hosts and two receivers sharing only Temporal and object storage', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-multihost-'));
  const hosts: Record<string, Host> = {};
  const children: ChildProcess[] = [];
  const taskQueue = `test-multihost-${Math.random().toString(36).slice(2, 8)}`;
  const key = generateCodecKey();
  const codecKeys = `${key.keyId}:${key.base64}`;
  let s3: RunningS3DevServer;
  let sandboxUrl: string;
  let sandboxInfo: RunningSandbox['info'];
  let shared: Record<string, string>;
  let workers: Record<'a' | 'b', ChildProcess>;
  const receivers: { url: string; child: ChildProcess; host: Host }[] = [];
  let fanOut: http.Server;
  let fanOutUrl: string;
  const deliveries: Delivery[] = [];
  const figures = { doubleDeliveries: 0, forwarded: 0, killedAfterRequests: 0 };
  let hundredK: string[] = [];
  let studyFiles: string[] = [];
  let client: Awaited<ReturnType<typeof connectClient>>;

  const host = (name: string): Host => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    hosts[name] = { name, dir, log: [] };
    return hosts[name];
  };

  /** The environment of a process on `h`: nothing inherited but PATH, its own HOME and cwd-relative defaults. */
  const envOf = (h: Host, extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: h.dir,
    XDG_CACHE_HOME: path.join(h.dir, '.cache'),
    NO_COLOR: '1',
    ...extra,
  });

  const startProcess = (h: Host, args: string[], env: Record<string, string>): ChildProcess => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: h.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => h.log.push(c.toString()));
    child.stderr?.on('data', (c: Buffer) => h.log.push(c.toString()));
    children.push(child);
    return child;
  };

  const runCli = async (h: Host, args: string[], timeoutMs = 240_000): Promise<{ code: number | null; out: string }> => {
    const child = startProcess(h, args, envOf(h, shared));
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    return { code, out };
  };

  const sandboxGet = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${sandboxUrl}/_sandbox${p}`);
    if (!res.ok) throw new Error(`GET /_sandbox${p}: ${res.status}`);
    return (await res.json()) as T;
  };
  const sandboxRequests = async () => (await sandboxGet<{ data: { method: string; path: string; route: string | null }[] }>('/requests')).data;
  const sandboxState = async () => (await sandboxGet<{ records: Record<string, any> }>('/state')).records;
  const status = (studyId: string) => client.client.workflow.getHandle(studyWorkflowId(ACCOUNT, studyId)).query(statusQuery) as Promise<StudyStatus>;

  beforeAll(async () => {
    const started = Date.now();
    // The S3 server, on a "storage" host.
    const storage = host('s3');
    s3 = await startS3DevServer({ rootDir: path.join(storage.dir, 'data'), buckets: ['studyflow'], stopWithParent: true, cwd: storage.dir, env: envOf(storage) });

    // The sandbox API, as its own process.
    const api = host('sandbox');
    const sandboxPort = await findFreePort();
    startProcess(api, ['sandbox', '--port', String(sandboxPort)], envOf(api));
    sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
    sandboxInfo = await eventually(async () => (await fetch(`${sandboxUrl}/_sandbox/info`)).json() as Promise<RunningSandbox['info']>, 60_000, 200);

    shared = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: 'default',
      STUDYFLOW_TASK_QUEUE: taskQueue,
      STUDYFLOW_API_BASE_URL: sandboxInfo.base_url,
      STUDYFLOW_AUTH_URL: sandboxInfo.auth_url,
      STUDYFLOW_AUDIENCE: sandboxInfo.audience,
      STUDYFLOW_CLIENT_ID: sandboxInfo.client_id,
      STUDYFLOW_CLIENT_SECRET: sandboxInfo.client_secret,
      STUDYFLOW_CODEC_KEYS: codecKeys,
      STUDYFLOW_BLOB_URL: 's3://studyflow/blobs',
      ...s3.env,
    };

    // The workflow bundle, built once like an image, copied onto each worker host.
    const bundle = path.join(root, 'bundle.js');
    await writeWorkflowBundle(bundle);
    const workerHost = (name: 'a' | 'b') => {
      const h = host(`worker-${name}`);
      fs.copyFileSync(bundle, path.join(h.dir, 'workflows.js'));
      return startProcess(h, ['worker'], envOf(h, { ...shared, STUDYFLOW_WORKFLOW_BUNDLE: path.join(h.dir, 'workflows.js') }));
    };
    workers = { a: workerHost('a'), b: workerHost('b') };
    fs.rmSync(bundle);

    // Two receivers (webhooks only), each on a free port.
    for (const name of ['a', 'b']) {
      const h = host(`receiver-${name}`);
      const child = startProcess(h, ['receiver', '--port', '0'], envOf(h, shared));
      const url = await eventually(async () => /receiving webhooks on (\S+)/.exec(h.log.join(''))?.[1], 60_000, 100);
      receivers.push({ url, child, host: h });
    }

    // The load balancer in front of the receivers: every delivery to both, every other event twice.
    fanOut = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
        const text = (headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
        const envelope = JSON.parse(text) as { id: string; data?: { target_group_id?: string | number } };
        const delivery: Delivery = { eventId: envelope.id, targetGroupId: envelope.data?.target_group_id === undefined ? undefined : String(envelope.data.target_group_id), headers, body };
        const first = !deliveries.some((d) => d.eventId === delivery.eventId);
        // Every second new event is delivered twice (decided on arrival).
        const twice = first && new Set(deliveries.map((d) => d.eventId)).size % 2 === 1;
        deliveries.push(delivery);
        const forward = () => Promise.all(receivers.map((r) => fetch(r.url, { method: 'POST', headers, body }).then((x) => x.status, () => 599)));
        void forward().then((statuses) => {
          figures.forwarded += statuses.length;
          res.writeHead(statuses.some((s) => s < 300) ? 202 : 503, { 'content-type': 'application/json' });
          res.end('{}');
          if (twice) {
            figures.doubleDeliveries += 1;
            setTimeout(() => void forward().then((again) => (figures.forwarded += again.length)), 300);
          }
        });
      });
    });
    await new Promise<void>((resolve) => fanOut.listen(0, '127.0.0.1', resolve));
    fanOutUrl = `http://127.0.0.1:${(fanOut.address() as AddressInfo).port}/webhooks/demand`;

    // The CI runner's checkout: the examples, edited only where they must point at this environment.
    const ci = host('ci-runner');
    const copy = (name: string, edit: (text: string) => string = (t) => t) => {
      fs.cpSync(path.join(EXAMPLES, name), path.join(ci.dir, name), { recursive: true });
      const file = path.join(ci.dir, name, 'study.yaml');
      fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')));
      return file;
    };
    const apiClient = new SandboxTestClient({ info: sandboxInfo, baseUrl: sandboxInfo.base_url, authUrl: sandboxInfo.auth_url } as unknown as RunningSandbox);
    const project = await apiClient.createProject({ name: 'earlier wave', project_customer_reference_number: 'PO-2025-0040' });
    const outsideTg = await apiClient.createTargetGroup(project.id as string, { locale: 'eng_us' });
    const everyExclusion = copy('every-exclusion', (t) => t.replace('project: "5001"', `project: "${project.id}"`).replace('target_group_id: "7001"', `target_group_id: "${outsideTg.id}"`));
    const recontact = copy('recontact-wave');
    const tracker = copy('multi-country-tracker', (t) => t.replace('https://hooks.example.com/studyflow', fanOutUrl));
    hundredK = syntheticRsids('multi-host-100k', HUNDRED_K);
    fs.mkdirSync(path.join(ci.dir, 'panel'), { recursive: true });
    fs.writeFileSync(path.join(ci.dir, 'panel', 'past-100k.txt'), `${hundredK.join('\n')}\n`);
    const large = path.join(ci.dir, 'panel', 'study.yaml');
    fs.writeFileSync(large, `format: studyflow/v1
study: panel-exclusion-100k
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Panel study excluding 100,000 past respondents
  project_customer_reference_number: PO-MULTIHOST-100K
target_groups:
  us_panel:
    locale: en_US
    live_url: https://survey.example.com/s/panel?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 400
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch: { mode: auto }
    timing: { job_poll_initial: 200ms, job_poll_max: 500ms }
    exclusions:
      respondent_ids: { file: past-100k.txt }
`);
    studyFiles = [everyExclusion, recontact, tracker, large];
    client = await connectClient({ address: shared.TEMPORAL_ADDRESS, namespace: 'default', connectionOptions: {} }, { STUDYFLOW_CODEC_KEYS: codecKeys });
    say(`topology up in ${Math.round((Date.now() - started) / 1000)} s under ${root}: S3 ${s3.endpoint}, sandbox ${sandboxUrl}, Temporal ${shared.TEMPORAL_ADDRESS}, ` +
      `workers pid ${workers.a.pid} and ${workers.b.pid}, receivers ${receivers.map((r) => r.url).join(' and ')}, load balancer ${fanOutUrl}`);
  }, 240_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // End this file's workflows: their ids (study/<account>/<study>) are the examples', which other files apply too.
    if (client) {
      for await (const wf of client.client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
        await client.client.workflow.getHandle(wf.workflowId, wf.runId).terminate('test finished').catch(() => undefined);
      }
    }
    await client?.connection.close();
    if (fanOut) await new Promise((resolve) => fanOut.close(resolve));
    await s3?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('each process checks what it needs, from its own host', async () => {
    for (const name of ['worker-b', 'receiver-a', 'receiver-b']) {
      const role = name.startsWith('worker') ? 'worker' : 'receiver';
      const result = await runCli(hosts[name], [role, '--check', '--json'], 60_000);
      expect(result.code, result.out).toBe(0);
      const report = JSON.parse(result.out.slice(result.out.indexOf('{'), result.out.lastIndexOf('}') + 1)) as { ok: boolean; checks: { name: string; ok: boolean }[] };
      expect(report.checks.map((c) => [c.name, c.ok])).toEqual([['temporal', true], ['search attributes', true], ['payload key', true], ['blob store', true], ['webhook secrets', true]]);
    }
    // A wrong storage credential is named, and exits 1.
    const badEnv = envOf(hosts['receiver-b'], { ...shared, AWS_SECRET_ACCESS_KEY: 'wrong-secret-for-the-check' });
    const bad = startProcess(hosts['receiver-b'], ['receiver', '--check'], badEnv);
    let out = '';
    bad.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((resolve) => bad.once('exit', resolve))).toBe(1);
    expect(out).toMatch(/FAIL blob store .*refused the credential/);
    expect(out).not.toContain('wrong-secret-for-the-check');
  });

  it('applies the examples and a 100,000-ID list from the CI runner while a worker host is SIGKILLed', async () => {
    const ci = hosts['ci-runner'];
    const before = (await sandboxRequests()).length;
    const started = Date.now();
    const apply = runCli(ci, ['apply', ...studyFiles, '--json', '--timeout', '200'], 240_000);
    // Mid-way: once the workers have made 40 API requests, worker host A dies without warning.
    figures.killedAfterRequests = await eventually(async () => {
      const n = (await sandboxRequests()).length - before;
      return n >= 40 ? n : undefined;
    }, 180_000, 100);
    workers.a.kill('SIGKILL');
    await new Promise((resolve) => workers.a.once('exit', resolve));
    say(`SIGKILL worker-a (pid ${workers.a.pid}) after ${figures.killedAfterRequests} API requests, ${((Date.now() - started) / 1000).toFixed(1)} s into the apply; worker-b carries on`);
    const result = await apply;
    expect(result.code, result.out.slice(-3000)).toBe(0);
    say(`apply of ${studyFiles.length} studies returned ${result.code} after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // The runner's own blob directory holds nothing: the lists went to object storage, where the workers read them.
    expect(fs.existsSync(path.join(ci.dir, '.studyflow', 'blobs'))).toBe(false);
    const stored = fs.readdirSync(path.join(hosts.s3.dir, 'data', 'studyflow', 'blobs', 'sha256'));
    expect(stored).toHaveLength(4); // RSIDs, GUIDs, the recontact list, the 100,000 IDs

    for (const file of [path.join(path.dirname(studyFiles[1]), 'study.yaml'), studyFiles[2]]) {
      const approved = await runCli(ci, ['approve', file], 60_000);
      expect(approved.code, approved.out).toBe(0);
    }
    const studies = ['acme-every-exclusion', 'acme-recontact-wave2', 'acme-tracker-2026q4', 'panel-exclusion-100k'];
    const live = await eventually(async () => {
      const all = await Promise.all(studies.map(status));
      const tgs = all.flatMap((s) => Object.values(s.targetGroups).map((tg) => ({ study: s.studyId, ...tg })));
      const settled = all.every((s) => s.phase === 'converged' && s.appliedRevision === s.revision);
      // Every target group goes live but us_boost, which the runner does not approve (the tracker's Germany included: its cap is in the quoted currency).
      const expected = tgs.filter((tg) => !(tg.study === 'acme-every-exclusion' && tg.key === 'us_boost'));
      return settled && expected.every((tg) => tg.phase === 'live' || tg.phase === 'completed') ? tgs : undefined;
    }, 180_000, 500);
    say(`converged: ${live.map((tg) => `${tg.study}/${tg.key}=${tg.phase}`).join(', ')}`);

    // Each ID list reached the API once (a retried upload replays its Idempotency-Key, it makes no new job).
    const state = await sandboxState();
    const jobs = Object.values(state.jobs as Record<string, { kind: string; target_group_id: string }>);
    const uploads = jobs.filter((j) => j.kind === 'exclusion_upload' || j.kind === 'recontact_upload');
    const tgOf = (study: string, k: string) => {
      const found = Object.values(state.target_groups as Record<string, { id: string; target_group_customer_reference_number: string }>).find(
        (t) => t.target_group_customer_reference_number === targetGroupReference(study, k),
      );
      expect(found, `the sandbox holds target group ${study}/${k}`).toBeDefined();
      return found!.id;
    };
    const usMain = tgOf('acme-every-exclusion', 'us_main');
    const panel = tgOf('panel-exclusion-100k', 'us_panel');
    const wave2 = tgOf('acme-recontact-wave2', 'wave2_recontact');
    expect(uploads.filter((j) => j.target_group_id === usMain && j.kind === 'exclusion_upload')).toHaveLength(2);
    expect(uploads.filter((j) => j.target_group_id === panel && j.kind === 'exclusion_upload')).toHaveLength(1);
    expect(uploads.filter((j) => j.target_group_id === wave2 && j.kind === 'recontact_upload')).toHaveLength(1);
    expect(uploads).toHaveLength(4);
    const excluded = (state.id_exclusion_lists as Record<string, { rsid: string[] }>)[panel];
    expect(excluded.rsid).toHaveLength(HUNDRED_K);
    say(`ID lists: ${stored.length} objects in s3://studyflow/blobs/sha256, ${uploads.length} upload jobs in the API (one per list), ${excluded.rsid.length} IDs excluded from us_panel`);
  });

  it('every webhook event reaches its workflow once, though both receivers got every delivery and every second event twice', async () => {
    // Fielding moves on: sessions and target-group changes become signed, gzip-compressed deliveries.
    for (let i = 0; i < 4; i += 1) {
      const res = await fetch(`${sandboxUrl}/_sandbox/fielding/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ minutes: 120 }) });
      expect(res.status).toBeLessThan(300);
    }
    const studies = ['acme-every-exclusion', 'acme-recontact-wave2', 'acme-tracker-2026q4', 'panel-exclusion-100k'];
    const distinct = () => new Map(deliveries.map((d) => [d.eventId, d.targetGroupId]));
    await eventually(async () => (distinct().size >= 6 ? true : undefined), 90_000, 250);
    // Per target group: the events the workflow recorded equal the distinct events delivered for it.
    const counted = await eventually(async () => {
      const byTg = new Map<string, number>();
      for (const tg of distinct().values()) if (tg) byTg.set(tg, (byTg.get(tg) ?? 0) + 1);
      const all = await Promise.all(studies.map(status));
      const tgs = all.flatMap((s) => Object.values(s.targetGroups)).filter((tg) => tg.targetGroupId && byTg.has(tg.targetGroupId));
      const settled = tgs.every((tg) => tg.events.received === byTg.get(tg.targetGroupId!));
      const total = [...byTg.values()].reduce((a, b) => a + b, 0);
      if (settled && tgs.length > 0 && tgs.reduce((a, tg) => a + tg.events.received, 0) === total) return { tgs, byTg, total };
      // Not (yet) once each: say how far apart, so a timeout shows the last difference.
      throw new Error(`recorded/delivered per target group: ${tgs.map((tg) => `${tg.key} ${tg.events.received}/${byTg.get(tg.targetGroupId!)}`).join(', ')}`);
    }, 90_000, 500);
    const duplicatesSent = deliveries.length - distinct().size;
    expect(figures.doubleDeliveries).toBeGreaterThan(0);
    expect(duplicatesSent).toBeGreaterThanOrEqual(0);

    // Each receiver passed every distinct event on (its own cache caught its second copy); the workflows took each once.
    for (const r of receivers) r.child.kill('SIGTERM');
    await Promise.all(receivers.map((r) => new Promise((resolve) => (r.child.exitCode !== null ? resolve(null) : r.child.once('exit', resolve)))));
    const stats = receivers.map((r) => {
      const line = /receiver stopped: (\d+) accepted, (\d+) duplicate\(s\) answered here, (\d+) passed on, (\d+) caught as duplicates by the workflow, (\d+) for unmanaged/.exec(r.host.log.join(''));
      expect(line, r.host.log.join('').slice(-2000)).not.toBeNull();
      const [accepted, localDuplicates, passedOn, workflowDuplicates, unmanaged] = line!.slice(1).map(Number);
      return { accepted, localDuplicates, passedOn, workflowDuplicates, unmanaged };
    });
    for (const s of stats) {
      expect(s.accepted).toBe(distinct().size);
      expect(s.localDuplicates).toBe(figures.doubleDeliveries);
    }
    say(`webhooks: ${distinct().size} events, ${deliveries.length} deliveries from the sandbox, ${figures.doubleDeliveries} events delivered twice to both receivers, ` +
      `${figures.forwarded} forwards in all; receiver-a ${JSON.stringify(stats[0])}, receiver-b ${JSON.stringify(stats[1])}; ` +
      `workflows recorded ${counted.total} events in ${counted.tgs.length} target groups (once each)`);
  });

  it('no secret, key or respondent ID is in any workflow history or process log', async () => {
    const state = await sandboxState();
    const webhookSecrets = Object.values((state.slices.webhooks as { webhooks: Record<string, { secret: string }> }).webhooks).map((w) => w.secret);
    expect(webhookSecrets.length).toBeGreaterThan(0);
    const idsOf = (file: string) => fs.readFileSync(path.join(EXAMPLES, file), 'utf8').split(/\r?\n/).filter(Boolean).slice(0, 5);
    const forbidden = [
      sandboxInfo.client_secret,
      s3.secretAccessKey,
      key.base64,
      ...webhookSecrets,
      ...idsOf('every-exclusion/ids/past-completes.txt'),
      ...idsOf('every-exclusion/ids/access-guids.txt'),
      ...idsOf('recontact-wave/ids/wave1-completes.txt'),
      hundredK[0],
      hundredK[HUNDRED_K - 1],
    ];
    const codec = new AesGcmPayloadCodec(parseCodecKeyList(codecKeys));
    let workflows = 0;
    let payloads = 0;
    for await (const wf of client.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
      const json = historyToJSON(await client.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory());
      const decoded: string[] = [];
      for (const p of historyPayloads(json)) {
        const payload: Payload = { metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])), data: Buffer.from(p.data, 'base64') };
        const [plain] = isEncryptedPayload(payload) ? await codec.decode([payload]) : [payload];
        decoded.push(Buffer.from(plain.data ?? new Uint8Array()).toString('utf8'));
        payloads += 1;
      }
      const text = `${json}\n${decoded.join('\n')}`;
      for (const needle of forbidden) expect(text.includes(needle), `${wf.workflowId} holds a forbidden value (${needle.slice(0, 4)}…)`).toBe(false);
      workflows += 1;
    }
    expect(workflows).toBeGreaterThanOrEqual(10);
    const logs = Object.values(hosts).map((h) => h.log.join(''));
    for (const needle of forbidden) expect(logs.some((l) => l.includes(needle)), `a process log holds a forbidden value (${needle.slice(0, 4)}…)`).toBe(false);
    // Nor in the object storage in the clear: sealed secret records only.
    const sealed = fs.readdirSync(path.join(hosts.s3.dir, 'data', 'studyflow', 'blobs', 'webhook-secrets'), { recursive: true }).filter((f) => String(f).endsWith('.sealed'));
    expect(sealed.length).toBe(webhookSecrets.length);
    for (const f of sealed) {
      const text = fs.readFileSync(path.join(hosts.s3.dir, 'data', 'studyflow', 'blobs', 'webhook-secrets', String(f)), 'utf8');
      for (const secret of webhookSecrets) expect(text).not.toContain(secret);
    }
    say(`scanned ${workflows} workflow histories (${payloads} payloads decrypted) and ${logs.length} hosts' logs for ${forbidden.length} forbidden values: none found; ${sealed.length} sealed secret record(s) in object storage`);
  });
});
