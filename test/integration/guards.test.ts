// Issue 29's guards on the embedded stack (real Temporal, the sandbox's fielding simulation): a live target group
// with an incidence guard; its simulated incidence is dropped (PUT /_sandbox/fielding/target-groups/{id}/settings)
// and the simulation advanced. The guard trips and pauses the fielding run; `studyflow status` shows the guard and
// its evidence; the StudyflowReason search attribute finds the workflow; `fielding: live` in the file and
// `studyflow fielding resume` do not resume it (the last exits 1 with the workflow's refusal); `studyflow approve --resume --by` does (recorded with who); a
// local receiver (its URL in the worker's environment, named by the study's notify block) got guard_tripped once;
// and the worker (a `studyflow worker` process: run `node scripts/build.mjs` first) counted the trip on /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { quickLaunchFields } from '../helpers/study-yaml';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { targetGroupWorkflowId } from '../../workflows/messages';
import { REASON } from '../../workflows/search-attributes';
import { eventually, writeStudy } from './harness';

const STUDY = 'guard-flow';
const HOOK_ENV = 'GUARD_FLOW_HOOK_URL';
const MIN_ENTRANTS = 40;

const studyYaml = (fielding?: 'live') => `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Guard flow
  project_customer_reference_number: PO-GUARD-FLOW
notify:
  - url: \${${HOOK_ENV}}
    events: [guard_tripped]
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/guard-flow?rid=[%RID%]
    filling_goal: 3000
    end_fielding_at: 2027-06-01T00:00:00Z
${fielding ? `    fielding: ${fielding}\n` : ''}    guards:
      low_incidence: { incidence_below: 0.5, min_entrants: ${MIN_ENTRANTS} }
`;

describe('a guard pauses a target group whose incidence drops, and approve --resume resumes it', () => {
  const t = useTestStack('guards', { inProcessWorker: false });
  let hook: LocalWebhook;
  let metricsUrl: string;
  let stderr = '';
  let file = '';
  const cliEnv = () => ({ [HOOK_ENV]: hook.url, STUDYFLOW_WATCH_INTERVAL_MS: '1500' });
  const tg = () => Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${STUDY}_us`)!;
  const run = () => Object.values(t.stack.sandbox.state().fielding_runs).find((r) => r.target_group_id === tg().id)!;
  const admin = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, `${method} ${route}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const guardTrips = () => hook.received.filter((r) => JSON.stringify(r.body).includes('Guard tripped'));

  beforeAll(async () => {
    hook = await startLocalWebhook([200]);
    // The worker reads the URL when it sends: the study names only the variable.
    t.spawnWorker({ env: { [HOOK_ENV]: hook.url, STUDYFLOW_METRICS_PORT: '0' }, onStderr: (text) => (stderr += text) });
    metricsUrl = await eventually(async () => /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr)?.[1], 60_000, 100);
  });
  /** studyflow_guard_trips_total by guard kind, as the worker's /metrics serves it now. */
  const guardTripsCounted = async () =>
    Object.fromEntries(parsePrometheusText(await (await fetch(metricsUrl)).text()).samples.filter((s) => s.name === 'studyflow_guard_trips_total').map((s) => [s.labels.guard, s.value]));
  afterAll(async () => hook?.close());

  it('launches the target group with its guard in force (plan lists it)', async () => {
    file = writeStudy(t.dir, 'study.yaml', studyYaml());
    const planned = await t.cli(['plan', file], cliEnv());
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/low_incidence: incidence below 0\.3 \(0\.5 of the expected 0\.6\) after 40 entrants; pauses/);
    const applied = await t.cli(['apply', file, '--require-live'], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(run().status).toBe('live');
  });

  it('trips when the simulated incidence drops: paused in the exchange, evidence in status, found by StudyflowReason', async () => {
    // Slow time (speed 1): the reads between the steps add no arrivals worth counting; the advance makes them.
    await admin('PUT', '/fielding/settings', { speed: 1, auto_advance: false });
    expect(await admin('PUT', `/fielding/target-groups/${tg().id}/settings`, { incidence_rate: 0.05 })).toEqual({ incidence_rate: 0.05 });
    await admin('POST', '/fielding/advance', { minutes: 24 * 60 });

    const status = await eventually(async () => {
      const s = await t.status('1001', STUDY);
      return s.targetGroups.us?.guards?.hold ? s : undefined;
    }, 90_000, 500);
    const us = status.targetGroups.us;
    const trip = us.guards!.active[0];
    expect(trip).toMatchObject({ guard: 'low_incidence', kind: 'incidence_below', action: 'pause', unit: 'rate', threshold: 0.3 });
    expect(trip.value).toBeLessThan(0.3);
    expect(trip.figures.entrants).toBeGreaterThanOrEqual(MIN_ENTRANTS);
    expect(trip.text).toMatch(/^incidence 0\.\d+ is below 0\.3 \(0\.5 of the expected 0\.6\) after \d+ entrants$/);
    expect(Date.parse(trip.at)).not.toBeNaN();
    expect(us.guards!.trips).toBe(1);
    // Paused through the fielding path: the exchange's run, and the workflow's phase.
    await eventually(async () => ((await t.status('1001', STUDY)).targetGroups.us.phase === 'paused' ? true : undefined), 30_000, 250);
    expect(run().status).toBe('paused');
    // The worker counted the pause the guard made.
    expect(await guardTripsCounted()).toEqual({ incidence_below: 1 });

    const shown = await t.cli(['status', file], cliEnv());
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/us\s+paused .*held by guard low_incidence/);
    expect(shown.stdout).toContain(`us guard low_incidence (incidence_below) tripped at ${trip.at}: ${trip.text}; paused it; \`studyflow approve --resume\` resumes it`);

    const workflowId = targetGroupWorkflowId('1001', STUDY, 'us');
    const query = `StudyflowReason = 'guard:incidence_below' AND TaskQueue = '${t.taskQueue}'`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of t.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.length ? ids : undefined;
    }, 30_000, 500);
    expect(found).toEqual([workflowId]);
    expect((await t.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(REASON)).toBe('guard:incidence_below');
  });

  it('stays paused: a re-apply with `fielding: live` plans no resume, and `studyflow fielding resume` is refused', async () => {
    file = writeStudy(t.dir, 'study.yaml', studyYaml('live'));
    const planned = await t.cli(['plan', file], cliEnv());
    expect(planned.stdout).toMatch(/paused, held by guard low_incidence/);
    expect(planned.stdout).not.toMatch(/resume_fielding_run/);
    const before = t.stack.sandbox.requests().length;
    const applied = await t.cli(['apply', file], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(t.stack.sandbox.requests().slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/resume'))).toEqual([]);

    // Refused, and the command says so: the workflow's answer (its Update), not "resume requested".
    const resumed = await t.cli(['fielding', 'resume', file, '--target-group', 'us'], cliEnv());
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(1);
    expect(resumed.stderr).toMatch(/^error: cannot resume: held by guard low_incidence \(incidence 0\.\d+ is below 0\.3 .*\): resume with `studyflow approve --resume`/m);
    expect(resumed.stdout).not.toContain('requested');
    expect((await t.status('1001', STUDY)).targetGroups.us.message).toMatch(/cannot resume: held by guard low_incidence/);
    expect(run().status).toBe('paused');
  });

  it('resumes on `approve --resume --by`, recorded with who; the receiver got guard_tripped once', async () => {
    const resumed = await t.cli(['approve', '--resume', '--by', 'ops-oncall', file], cliEnv());
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('resume requested by ops-oncall: us');
    const status = await eventually(async () => {
      const s = await t.status('1001', STUDY);
      return s.targetGroups.us.phase === 'live' && s.targetGroups.us.guards?.resumed ? s : undefined;
    }, 30_000, 250);
    expect(run().status).toBe('live');
    const guards = status.targetGroups.us.guards!;
    expect(guards.resumed).toMatchObject({ by: 'ops-oncall', guards: ['low_incidence'] });
    expect(guards.hold).toBeUndefined();
    expect(guards.active).toEqual([]);
    // The report's changes reach the study with the next reading.
    const report = await eventually(async () => {
      const r = await t.cli(['report', file], cliEnv());
      return /resumed by ops-oncall: guard low_incidence acknowledged/.test(r.stdout) ? r : undefined;
    }, 30_000, 500);
    expect(report.stdout).toMatch(/guard low_incidence tripped \(pauses\): incidence 0\.\d+ is below 0\.3/);
    const shown = await t.cli(['status', file], cliEnv());
    expect(shown.stdout).toContain('us resumed by ops-oncall');
    // Nothing holds it now: a second approve --resume finds nothing to resume.
    expect((await t.cli(['approve', '--resume', file], cliEnv())).stdout).toContain('no target group was held paused by a guard');

    // Exactly one guard_tripped reached the receiver (the trip's dedupe key makes retries and replays send nothing new).
    await eventually(async () => (guardTrips().length >= 1 ? true : undefined), 30_000, 250);
    await new Promise((r) => setTimeout(r, 3_000)); // a few more watch ticks: nothing else is sent
    expect(guardTrips()).toHaveLength(1);
    expect(await guardTripsCounted()).toEqual({ incidence_below: 1 });
    const text = JSON.stringify(guardTrips()[0].body);
    expect(text).toContain('low_incidence');
    expect(text).toContain('is below 0.3');
    // The URL (with its token path) never entered a workflow history.
    await t.scanHistories([hook.url, t.env.STUDYFLOW_CLIENT_SECRET]);
  });
});
