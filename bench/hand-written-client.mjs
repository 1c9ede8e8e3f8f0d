#!/usr/bin/env node
// The fastest client a buyer could write by hand, for bench/buyer-view.ts: no Temporal, no reads before
// writes, every target group in parallel. One token, one project, then for each target group a draft create
// with a feasibility check beside it, the launch, and a poll of the launch job every --poll-ms until it is done.
// Written from the API spec and the published reference alone (it imports nothing of studyflow), in plain
// JavaScript so that it starts as fast as Node does.
//
//   node bench/hand-written-client.mjs --base-url URL --auth-url URL --audience A --client-id ID --client-secret S
//       --account ACC --business-unit BU --project-manager UUID --target-groups N [--poll-ms 50]
//       [--version-header Svc-API-Version] [--run-id ID]
// Prints one JSON line: {targetGroups, calls, polls, ms} (calls include the job polls). Exit 1 on any failure.
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    'auth-url': { type: 'string' },
    audience: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    account: { type: 'string' },
    'business-unit': { type: 'string' },
    'project-manager': { type: 'string' },
    'target-groups': { type: 'string' },
    'poll-ms': { type: 'string', default: '50' },
    'version-header': { type: 'string', default: 'Svc-API-Version' },
    'run-id': { type: 'string', default: String(Date.now()) },
  },
});
for (const name of ['base-url', 'auth-url', 'audience', 'client-id', 'client-secret', 'account', 'business-unit', 'project-manager', 'target-groups']) {
  if (!values[name]) {
    process.stderr.write(`hand-written-client: --${name} is required\n`);
    process.exit(2);
  }
}
const started = performance.now();
const n = Number(values['target-groups']);
const pollMs = Number(values['poll-ms']);
const base = `${values['base-url']}/v1/demand/accounts/${values.account}`;
let calls = 0;
let polls = 0;

async function call(method, url, { body, token, idempotencyKey } = {}) {
  calls += 1;
  const headers = { accept: 'application/json', [values['version-header']]: '2025-12-18' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return { res, json: text ? JSON.parse(text) : undefined };
}

const token = (
  await call('POST', `${values['auth-url']}/oauth/token`, {
    body: { grant_type: 'client_credentials', client_id: values['client-id'], client_secret: values['client-secret'], audience: values.audience, auth_scopes: 'app:api' },
  })
).json.access_token;

const reference = `hand-${values["run-id"]}`.replace(/[^a-zA-Z0-9\-_ ]/g, '-');
const project = await call('POST', `${base}/projects`, {
  token,
  idempotencyKey: `${reference}-project`,
  body: { name: `Hand-written ${values['run-id']}`, project_manager_id: values['project-manager'], project_customer_reference_number: reference },
});
const projectId = project.json.id;

const now = Date.now();
const fielding = { start_at: new Date(now).toISOString(), end_at: new Date(now + 14 * 86_400_000).toISOString() };
const common = {
  locale: 'en_US',
  expected_incidence_rate: 0.6,
  expected_length_of_interview_minutes: 8,
  filling_goal: 50,
  fielding_specification: fielding,
};

async function oneTargetGroup(i) {
  const draft = call('POST', `${base}/projects/${projectId}/target-groups`, {
    token,
    body: {
      ...common,
      name: `Hand-written target group ${i}`,
      business_unit_id: values['business-unit'],
      project_manager_id: values['project-manager'],
      collects_pii: false,
      live_url: `https://survey.example.com/s/hand/${i}?rid=[%RID%]`,
      target_group_customer_reference_number: `${reference}-${i}`,
      fielding_assistant_assignment: {},
      allocations: { open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] } },
    },
  });
  const feasibility = call('POST', `${base}/target-groups/calculate-feasibility`, {
    token,
    body: { ...common, business_unit_id: Number(values['business-unit']), collects_pii: false },
  });
  const targetGroupId = (await draft).json.id;
  const launched = await call('POST', `${base}/projects/${projectId}/target-groups/${targetGroupId}/fielding-run-jobs/launch-from-draft`, {
    token,
    idempotencyKey: `${reference}-launch-${i}`,
    body: { end_fielding_at: fielding.end_at },
  });
  // The job is named by the Location header (the reference), or by job_id in a body.
  const jobId = launched.json?.job_id ?? launched.res.headers.get('location')?.split('/').pop();
  if (!jobId) throw new Error(`launch of target group ${i} named no job`);
  for (;;) {
    const polled = performance.now();
    polls += 1;
    const job = (await call('GET', `${base}/projects/${projectId}/target-groups/${targetGroupId}/fielding-run-jobs/launch-from-draft/${jobId}`, { token })).json;
    if (job.status === 'Completed') break;
    if (job.status === 'Failed') throw new Error(`launch job of target group ${i} failed: ${JSON.stringify(job.failure_reason)}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pollMs - (performance.now() - polled))));
  }
  await feasibility;
}

await Promise.all(Array.from({ length: n }, (_, i) => oneTargetGroup(i)));
process.stdout.write(`${JSON.stringify({ targetGroups: n, calls, polls, ms: Math.round(performance.now() - started) })}\n`);
